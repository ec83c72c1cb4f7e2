// Package sandbox runs the external programs vulnbench starts on untrusted code (scanners,
// govulncheck, agent CLIs, git on a clone) isolated by bubblewrap, so that a program, whatever
// the code it reads makes it do, sees the project and nothing else of the host.
//
// # What a sandboxed process sees
//
// A Spec names the project directory (shown read-only at /project, or as a scratch copy the
// process may change, removed after it), an advisories directory (/advisories), an output
// directory the caller reads after (/out), more read-only binds (toolchains, a CLI's install
// prefix), files to write into its home first (a CLI's configuration), its arguments and its
// whole environment. The sandbox adds:
//
//   - /usr, and /bin, /sbin, /lib, /lib64 as the host has them (directories or merged-/usr
//     links), read-only; of /etc only what programs need to start (the linker cache,
//     alternatives, certificates, time zone, nsswitch.conf, interpreters' settings: see
//     etcFiles), and its own passwd, group, hosts, hostname and an empty resolv.conf. Not shown:
//     the host's other /etc files (users, credentials such as /etc/npmrc), /root and /home, the
//     store, suites, labels, other snapshots, the caller's working directory, /sys.
//   - a new procfs for its own PID namespace, a minimal /dev, tmpfs /tmp (1777) and home
//     (/home/sandbox, 0700).
//   - the read-only host folders (the project, the advisories, each of Spec.Binds; a file bound
//     alone: its folder) as read-only overlayfs mounts vulnbench builds (overlay.go), so that
//     /proc/self/mountinfo names no host folder (a bind's root field is its source's host path):
//     each is built detached over vulnbench's own descriptor of the folder and attached over the
//     folder in a private mount namespace of the thread that starts bubblewrap. It needs
//     CAP_SYS_ADMIN (root); without it the binds are plain and Unbounded says so.
//   - new user, PID, IPC, network, UTS and cgroup namespaces (--unshare-all --unshare-user):
//     the process is uid 1000 "sandbox" with no capabilities (--cap-drop ALL), cannot make
//     user namespaces of its own (--disable-userns), and is killed with everything it started
//     when its parent dies (--die-with-parent); --new-session keeps it off the caller's
//     terminal.
//   - network: none, or only the model gateway. With Spec.Gateway (the host path of the
//     gateway's Unix socket) the socket is bound in and the process's program is started by a
//     forwarder (ForwardMain: cmd/vulnbench-forward, the small program built beside vulnbench;
//     else vulnbench re-executed as `vulnbench sandbox-forward`, whose start-up is ~30 ms of
//     package initialisation; or a test binary whose TestMain calls it) that listens on the
//     sandbox's own loopback
//     (127.0.0.1:8420, the {gateway} placeholder) and copies each connection to the socket. The
//     sandbox's loopback is its own: the host's ports, the second loopback port of the tests
//     included, are out of reach.
//   - its environment is Spec.Env and the defaults (PATH, HOME, TMPDIR, USER, LANG), nothing
//     inherited: bubblewrap itself is started with exactly that environment, because inside a
//     PID namespace /proc/1/environ is bubblewrap's own (--clearenv would leave it the
//     caller's).
//
// Limits: Spec.Timeout kills the process group (bubblewrap's, whose death kills the PID
// namespace and all in it) at its end, and so does the context; Spec.MaxOutput caps each of
// stdout and stderr (the process is killed at the cap, what it wrote before kept and marked);
// Spec.MaxProcs caps processes and threads where a pids cgroup is writable (cgroup v1's pids
// hierarchy, or a v2 cgroup that delegates pids): bubblewrap waits on --block-fd until it and
// its first child are in the cgroup, so nothing escapes the cap; ProcCap says whether it holds.
// Where no cgroup is writable a fork bomb still dies at the timeout, but only the timeout bounds
// it.
//
// # Where bubblewrap cannot run
//
// New checks the bwrap binary, the kernel's user-namespace settings and a trial run, and
// returns an *UnavailableError (matching ErrUnavailable) naming what is missing. ModeNone is
// the explicit alternative: the program runs on the host with the same Spec (placeholders name
// host paths, a temporary home and tmp; the gateway is forwarded from a host loopback port),
// and callers record it.
//
// # Gotchas learnt
//
//   - As root, bubblewrap keeps every capability inside unless told --cap-drop ALL, and
//     --unshare-all alone may or may not make a user namespace (it tries): say --unshare-user.
//   - bubblewrap writes its --info-fd JSON in pieces: closing the reading end after the first
//     field kills it with SIGPIPE.
//   - Tmpfs directories made by bubblewrap are owned by the sandbox's user but 0755 unless
//     --perms says otherwise; --file needs its parent directories made with --dir first.
//   - A Unix socket can be bound in; connect(2) works on it whatever the bind's flags.
//   - An overlay made inside the sandbox would need the helper to keep CAP_SYS_ADMIN in the user
//     namespace owning the mount namespace: bubblewrap (as root, with --uid, or with
//     --disable-userns) runs the program in a nested user namespace that owns nothing (mount:
//     EPERM), and a new mount namespace of the helper's own copies bubblewrap's mounts locked
//     (staging binds could never be detached). --ro-bind-fd cannot take a detached mount:
//     bubblewrap resolves the descriptor to a path ("/" for a detached mount). overlayfs with no
//     upper layer wants two lower ones ("at least 2 lowerdir are needed"). Removing a directory
//     on this project's ext4 (mounted with discard) takes ~1.3 ms: staging folders would cost
//     more than the overlays; a thread's own mount namespace needs none.
//   - Claude Code refuses --dangerously-skip-permissions as root: the sandbox's user is uid
//     1000, mapped to the caller's uid outside.
package sandbox
