// Command vulnbench-forward is the model gateway's forwarder inside a sandbox, alone: what
// `vulnbench sandbox-forward` does, in a program small enough to start in a few milliseconds
// (vulnbench's own start-up is tens of milliseconds of package initialisation, paid by every
// sandboxed agent). The sandbox uses it when it lies beside the vulnbench binary.
package main

import (
	"fmt"
	"os"

	"github.com/vulnbench/vulnbench/internal/sandbox"
)

func main() {
	code, ok := sandbox.ForwardMain(os.Args)
	if !ok {
		fmt.Fprintln(os.Stderr, "vulnbench-forward: run by vulnbench's sandbox as: vulnbench-forward sandbox-forward -listen ADDR -socket PATH -- COMMAND [ARGS...]")
		code = 2
	}
	os.Exit(code)
}
