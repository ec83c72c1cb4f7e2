package cli

import (
	"context"
	"errors"

	"github.com/vulnbench/vulnbench/internal/sandbox"
)

const sandboxUsage = "how external processes on case code run (scanners, git, agent CLIs): bwrap (bubblewrap: the case's files, the toolchains read-only, no network but the model gateway) or none (on the host, the whole host in view: stamped on the run and printed under its scores)"

// openSandbox is the run's --sandbox. Where bubblewrap cannot run and --sandbox was not given,
// it is nil: the subjects that start processes on case code refuse, naming what is missing,
// and the others run as before.
func openSandbox(ctx context.Context, flag string, given bool) (*sandbox.Sandbox, error) {
	mode, err := sandbox.ParseMode(flag)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	sb, err := sandbox.New(ctx, sandbox.Options{Mode: mode})
	if err != nil && errors.Is(err, sandbox.ErrUnavailable) && !given {
		return nil, nil
	}
	return sb, err
}
