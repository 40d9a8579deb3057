//go:build tools

// Package tools pins the modules the project builds and tests with.
package tools

import (
	_ "github.com/go-git/go-git/v5"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/spf13/pflag"
	_ "golang.org/x/text/cases"
)
