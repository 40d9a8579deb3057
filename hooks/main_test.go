package hooks

import (
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// The test binary doubles as a stand-in git-echoes (see
// testenv.MainWithStandIn), so installed hooks and drivers run under real git.
func TestMain(m *testing.M) { testenv.MainWithStandIn(m) }
