package pgtest

import "syscall"

// sysProcAttr runs a child as cred (nil: as the current user) and stops it (postgres: an
// immediate shutdown) when the test binary dies without stopping it.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
}
