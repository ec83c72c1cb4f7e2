package cli_test

import (
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/cli"
)

// serve refuses a non-loopback --addr without --allow-remote, before opening anything (issue 25,
// finding 1).
func TestServeRefusesRemoteAddrWithoutAllowRemote(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := run(t, dir, "serve", "--db", "none.db", "--addr", "0.0.0.0:0")
	if code != cli.ExitUsage || !strings.Contains(errOut, "not a loopback address") || !strings.Contains(errOut, "--allow-remote") {
		t.Errorf("serve --addr 0.0.0.0:0: exit %d, stderr %q; want a usage error naming --allow-remote", code, errOut)
	}
}
