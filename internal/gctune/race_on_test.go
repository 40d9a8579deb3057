//go:build race

package gctune

const raceOn = true
