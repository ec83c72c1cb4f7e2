package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

const sandboxUsage = "how external processes on case code run (scanners, git, agent CLIs): bwrap (bubblewrap: the case's files, the toolchains read-only, no network but the model gateway) or none (on the host, the whole host in view: stamped on the run and printed under its scores)"

// sandboxOpts are the flags of the sandbox external processes run in (run, worker).
type sandboxOpts struct {
	mode, disk, mem string
}

func (o *sandboxOpts) register(f *pflag.FlagSet, usage string) {
	f.StringVar(&o.mode, "sandbox", "bwrap", usage)
	f.StringVar(&o.disk, "sandbox-disk", sandbox.Size(sandbox.DefaultDisk), "bound of each sandboxed process's writable space (/tmp, home and its output folder together), e.g. 512MiB, 2GiB; off: none. Over it the unit ends as error naming it")
	f.StringVar(&o.mem, "sandbox-mem", sandbox.Size(sandbox.DefaultMemory), "memory bound of each sandboxed process and all it starts (a memory cgroup, where one is writable), e.g. 2GiB; off: none. Over it the unit ends as error naming it")
}

// openSandbox is the run's --sandbox. Where bubblewrap cannot run and --sandbox was not given,
// it is nil: the subjects that start processes on case code refuse, naming what is missing,
// and the others run as before. It says on stderr what it removed that a vulnbench that died
// had left, and which of its bounds do not hold here.
func openSandbox(ctx context.Context, o sandboxOpts, given bool, stderr io.Writer) (*sandbox.Sandbox, error) {
	mode, err := sandbox.ParseMode(o.mode)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	var disk, mem int64 // 0: the defaults (a command without the flags)
	if o.disk != "" {
		if disk, err = sandbox.ParseSize(o.disk); err != nil {
			return nil, usageErr("--sandbox-disk: %v", err)
		}
	}
	if o.mem != "" {
		if mem, err = sandbox.ParseSize(o.mem); err != nil {
			return nil, usageErr("--sandbox-mem: %v", err)
		}
	}
	sb, err := sandbox.New(ctx, sandbox.Options{Mode: mode, Disk: disk, Memory: mem})
	if err != nil && errors.Is(err, sandbox.ErrUnavailable) && !given {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if swept := sb.Swept(); len(swept) > 0 {
		fmt.Fprintf(stderr, "vulnbench: note: removed what a vulnbench that died left: %s\n", strings.Join(swept, ", "))
	}
	for _, u := range sb.Unbounded() {
		if !strings.HasPrefix(u, "isolation:") {
			fmt.Fprintf(stderr, "vulnbench: note: sandbox bound not enforced here: %s\n", u)
		}
	}
	return sb, nil
}
