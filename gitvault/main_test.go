package gitvault

import (
	"os"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestMain removes the directories the tests share (testenv.SharedTempDir)
// when they end.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
