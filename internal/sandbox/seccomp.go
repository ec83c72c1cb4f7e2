//go:build amd64 || arm64

package sandbox

import (
	"encoding/binary"
	"runtime"

	"golang.org/x/sys/unix"
)

// The seccomp filter every bubblewrap sandbox runs under (handed to bubblewrap's --seccomp FD),
// a classic BPF program built here, without cgo or libseccomp. It checks the architecture
// first (a system call of another ABI, 32-bit x86 or x32 on x86-64, has other numbers: refused
// with ENOSYS), then refuses with EPERM the calls a program on case code never needs and that
// reach past the sandbox's other walls: tracing and reading other processes (ptrace,
// process_vm_*, pidfd_getfd: an agent could stop bubblewrap's init and hang its unit), mounts
// and the new mount API, pivot_root, the kernel's keyrings, bpf, perf_event_open,
// userfaultfd, kexec, kernel modules, open_by_handle_at, swap, reboot, acct, syslog, quotas; and
// clone or unshare of a new user namespace (clone3, whose flags a filter cannot read, answers
// ENOSYS, so that libc falls back to clone). Everything else is allowed.

// deniedCalls are refused with EPERM.
func deniedCalls() []uint32 {
	return []uint32{
		unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
		unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_FSOPEN,
		unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
		unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
		unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
		unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_ACCT, unix.SYS_SYSLOG,
		unix.SYS_QUOTACTL,
	}
}

// auditArch is the architecture the filter admits, and whether its ABI has the x32 numbers
// (bit 30 set) to refuse.
func auditArch() (arch uint32, x32 bool, ok bool) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, true, true
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, false, true
	}
	return 0, false, false
}

// BPF opcodes and seccomp_data offsets.
const (
	bpfLdAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K

	offNr   = 0
	offArch = 4
	offArg0 = 16 // the low 32 bits of args[0] (little-endian: both architectures here)

	retAllow  = unix.SECCOMP_RET_ALLOW
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// seccompFilter is the filter's program as bubblewrap reads it (struct sock_filter, in the
// machine's byte order); nil on an architecture it is not built for.
func seccompFilter() []byte {
	arch, x32, ok := auditArch()
	if !ok {
		return nil
	}
	prog := filterProgram(arch, x32, deniedCalls())
	out := make([]byte, 0, 8*len(prog))
	for _, in := range prog {
		out = binary.LittleEndian.AppendUint16(out, in.Code)
		out = append(out, in.Jt, in.Jf)
		out = binary.LittleEndian.AppendUint32(out, in.K)
	}
	return out
}

// filterProgram assembles the filter. Its tail is fixed: allow, EPERM, ENOSYS, and the check of
// a clone's or an unshare's flags; each test before jumps forward to one of them.
func filterProgram(arch uint32, x32 bool, denied []uint32) []unix.SockFilter {
	var p []unix.SockFilter
	// Jumps are relative to the next instruction; labels are resolved once the body is known.
	type jump struct {
		at     int
		target string
		onTrue bool
	}
	var jumps []jump
	emit := func(code uint16, k uint32) { p = append(p, unix.SockFilter{Code: code, K: k}) }
	test := func(code uint16, k uint32, target string) {
		jumps = append(jumps, jump{at: len(p), target: target, onTrue: true})
		emit(code, k)
	}
	emit(bpfLdAbsW, offArch)
	jumps = append(jumps, jump{at: len(p), target: "enosys", onTrue: false})
	emit(bpfJeqK, arch)
	emit(bpfLdAbsW, offNr)
	if x32 {
		test(bpfJgeK, 0x40000000, "enosys")
	}
	for _, nr := range denied {
		test(bpfJeqK, nr, "eperm")
	}
	test(bpfJeqK, unix.SYS_CLONE3, "enosys")
	test(bpfJeqK, unix.SYS_CLONE, "flags")
	test(bpfJeqK, unix.SYS_UNSHARE, "flags")
	labels := map[string]int{}
	labels["allow"] = len(p)
	emit(bpfRetK, retAllow)
	labels["eperm"] = len(p)
	emit(bpfRetK, retEPERM)
	labels["enosys"] = len(p)
	emit(bpfRetK, retENOSYS)
	labels["flags"] = len(p)
	emit(bpfLdAbsW, offArg0)
	p = append(p, unix.SockFilter{Code: bpfJsetK, K: unix.CLONE_NEWUSER, Jt: 0, Jf: 1})
	emit(bpfRetK, retEPERM)
	emit(bpfRetK, retAllow)
	for _, j := range jumps {
		off := labels[j.target] - j.at - 1
		if j.onTrue {
			p[j.at].Jt = uint8(off)
		} else {
			p[j.at].Jf = uint8(off)
		}
	}
	return p
}
