package harnesstest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/progs"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// A unit of the battery is one case; the scripted model learns which from the marker in the
// case's code (battery-case:ID) and asks the CLI's shell tool to run that unit's probe, then
// answers.

// expect is what a unit must end as.
type expect struct {
	status string // ok, failed, error; "" for any
	reason string // in the verdict's reason
	tool   []string
	hidden []string // what the tool results must not hold (host paths)
}

// unit is one case of the battery: its probe and what it must end as.
type unit struct {
	id     string
	probe  string
	expect expect
}

// plants are what is put at each read-back path once the CLI wrote it: the link's target, or a
// FIFO, or a 1 GiB sparse file, and the refusal the reader must name.
func (w *world) plants() []struct{ id, kind, target, refusal string } {
	return []struct{ id, kind, target, refusal string }{
		{"plant-secret", "link", w.secret, "a symbolic link"},
		{"plant-environ", "link", "/proc/self/environ", "a symbolic link"},
		{"plant-zero", "link", "/dev/zero", "a symbolic link"},
		{"plant-fifo", "fifo", "", "a FIFO"},
		{"plant-sparse", "sparse", "", "over the cap"},
	}
}

// units are the battery's cases for row r.
func (w *world) units(r Row) []unit {
	us := []unit{
		{id: "look", probe: w.lookProbe(), expect: expect{status: "ok", tool: []string{"BATTERY-RAN", "uid=1000(sandbox)", "NO-LOOPBACK",
			"NO-HOST-ADDR", "NO-PROXY", "Read-only file system", "PTRACE -1 Operation not permitted", "MOUNT -1 Operation not permitted",
			"unshare failed: Operation not permitted", "MKNOD-REFUSED", "/project ro,", "CapBnd: 0000000000000000", "BATTERY-DONE"},
			hidden: w.hostPaths()}},
		{id: "disk", probe: diskProbe(), expect: expect{status: "error", reason: "filled its writable space"}},
		{id: "memory", probe: "head -c 8G /dev/zero | tail; echo tail-status=$?", expect: expect{status: "error", reason: "memory limit"}},
		{id: "procs", probe: w.procsProbe()},
	}
	paths := r.readBack()
	if len(paths) == 0 {
		return us
	}
	for _, p := range w.plants() {
		us = append(us, unit{id: p.id, probe: planterProbe(paths, p.kind, p.target), expect: expect{reason: p.refusal}})
	}
	return us
}

// inside is a read-back path as the process sees it.
func inside(p string) string {
	return strings.NewReplacer("{out}", sandbox.OutDir, "{home}", sandbox.HomeDir, "{tmp}", sandbox.TmpDir).Replace(p)
}

// hostPaths are the host folders a sandbox shows and must not name (in its mounts, its
// command lines): the snapshot cache, the CLIs' npm prefix, the folder of the units' host
// folders.
func (w *world) hostPaths() []string {
	paths := []string{w.snapshots, w.tmp}
	if p := progs.NodePrefix(); p != "" {
		paths = append(paths, p)
	}
	return paths
}

func (w *world) lookProbe() string {
	ptrace := `python3 -c "import ctypes,os;l=ctypes.CDLL(None,use_errno=True);r=l.ptrace(16,1,0,0);print('PTRACE',r,os.strerror(ctypes.get_errno()))"`
	mount := `python3 -c "import ctypes,os;l=ctypes.CDLL(None,use_errno=True);r=l.mount(b'none',b'/tmp',b'tmpfs',0,None);print('MOUNT',r,os.strerror(ctypes.get_errno()))"`
	addrs := ""
	for _, ip := range w.hostIPs {
		addrs += fmt.Sprintf("curl -s -m 3 http://%s:%d/ || echo NO-HOST-ADDR; ", ip, w.hostPort)
	}
	addrs += "echo addresses tried"
	gw := fmt.Sprintf("http://127.0.0.1:%d", sandbox.GatewayPort)
	return strings.Join([]string{
		"echo BATTERY-RAN; id",
		// What the sandbox shows of the host: its mounts (those on the system's own paths left out, to
		// keep the output short), every command line, the capability sets; first, before the long
		// environment dump a CLI may cut from its tool's output.
		`awk '$5 !~ "^/(usr|etc|proc|dev)(/|$)"' /proc/self/mountinfo`,
		"for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done",
		"grep ^Cap /proc/self/status | tr '\\t' ' '", // no tab: some CLIs hand tool output back JSON-escaped
		"cat " + w.marker + " " + w.secret + " " + w.db + " " + w.db + "-wal " + w.suite + " leak 2>&1 | head -c 4000",
		"cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | head -c 20000; echo",
		fmt.Sprintf("curl -s -m 3 http://127.0.0.1:%d/ || echo NO-LOOPBACK", w.port),
		addrs,
		fmt.Sprintf("(curl -s -m 3 -x %s http://127.0.0.1:%d/; curl -s -m 3 %s/http://127.0.0.1:%d/; curl -s -m 3 -p -x %s http://127.0.0.1:%d/) | grep -q PORT- || echo NO-PROXY",
			gw, w.port, gw, w.port, gw, w.port),
		"for f in /project/x /usr/x /opt/vulnbench/x /etc/x /x /advisories/x; do touch $f; done 2>&1 | sort -u | head -5",
		"ls -la / /root /home 2>&1 | head -40",
		ptrace, mount, "unshare -U true 2>&1",
		"mknod /tmp/dev c 1 5 2>/dev/null || echo MKNOD-REFUSED",
		"echo BATTERY-DONE",
	}, "; ")
}

// diskProbe writes 2 GiB to each of /tmp, the home and the output folder.
func diskProbe() string {
	var parts []string
	for _, d := range []string{sandbox.TmpDir, sandbox.HomeDir, sandbox.OutDir} {
		parts = append(parts, "dd if=/dev/zero of="+d+"/fill bs=1M count=2048 2>&1 | tail -1")
	}
	return strings.Join(parts, "; ") + "; df -h " + sandbox.TmpDir
}

// procsProbe leaves a process running (in a session of its own) and starts a fork bomb.
func (w *world) procsProbe() string {
	return "(setsid bash -c 'exec -a " + w.tag + " sleep 3600' >/dev/null 2>&1 &); " +
		"(setsid bash -c 'b() { b | b & }; b' >/dev/null 2>&1 &); sleep 3; echo BOMB-STARTED"
}

// planterProbe starts, in the background, a planter that puts the plant at each path the CLI
// will leave (a pattern's existing matches too) at once, made so that the CLI's own write
// leaves it there (a link is written through; the FIFO has a reader; the sparse file is
// read-only), and again whenever the CLI writes a file there anyway (stopping every other
// process of the sandbox, SIGSTOP, while it plants, so the CLI cannot end in between), until
// the sandbox ends it. The probe returns once the plants are in place.
func planterProbe(paths []string, kind, target string) string {
	var in []string
	for _, p := range paths {
		in = append(in, inside(p))
	}
	const planter = `import glob, os, signal, sys
pats, kind, target = sys.argv[1].split("|"), sys.argv[2], sys.argv[3]
mine, readers = {}, []
def plant(p):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    tmp = os.path.join(os.path.dirname(p), ".plant-%d" % os.getpid())
    if os.path.lexists(tmp): os.unlink(tmp)
    if kind == "link": os.symlink(target, tmp)
    elif kind == "fifo":
        os.mkfifo(tmp)
        readers.append(os.open(tmp, os.O_RDONLY | os.O_NONBLOCK))
    else:
        with open(tmp, "w") as f: f.truncate(1 << 30)
        os.chmod(tmp, 0o444)
    os.replace(tmp, p)
    st = os.lstat(p); mine[p] = (st.st_dev, st.st_ino)
for pat in pats:
    for p in (glob.glob(pat) if glob.has_magic(pat) else [pat]): plant(p)
open("/tmp/.planter-ready", "w").close()
while True:
    for pat in pats:
        for p in glob.glob(pat):
            try: st = os.lstat(p)
            except FileNotFoundError: continue
            if mine.get(p) != (st.st_dev, st.st_ino) and os.path.isfile(p) and not os.path.islink(p) and st.st_size > 0:
                os.kill(-1, signal.SIGSTOP)
                try: plant(p)
                finally: os.kill(-1, signal.SIGCONT)
`
	return fmt.Sprintf("(setsid python3 -c %s %s %s %s >/dev/null 2>&1 &); for i in $(seq 500); do [ -e /tmp/.planter-ready ] && break; sleep 0.01; done; echo PLANTER-STARTED",
		shellQuote(planter), shellQuote(strings.Join(in, "|")), kind, shellQuote(target))
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var caseRE = regexp.MustCompile(`battery-case:([a-z-]+)`)

// finalAnswer is the answer the scripted model gives once the probe ran (a JitVul answer).
const finalAnswer = `{"vulnerable": true, "cwe": "CWE-787", "reason": "b overflows past 8 bytes"}`

// script is the scripted model: a call without tools (a CLI's side task: a title) gets a short
// text; a case's first turn asks for its probe through the CLI's shell tool; the next its
// answer.
func script(r Row, probes map[string]string) llmtest.Handler {
	return func(req llmtest.Request) llmtest.Reply {
		if len(req.Tools) == 0 {
			return llmtest.Reply{Text: "Battery", InputTokens: 40, OutputTokens: 2}
		}
		m := caseRE.FindStringSubmatch(string(req.Raw))
		if m == nil || probes[m[1]] == "" {
			return llmtest.Reply{Status: 400, ErrorMessage: "harnesstest: no battery case in the request"}
		}
		if req.Turn() == 0 {
			return llmtest.Reply{Text: "Looking around first.", ToolCalls: []llmtest.ToolCall{r.Shell("call_"+strings.ReplaceAll(m[1], "-", "_"), probes[m[1]])},
				InputTokens: 3000, OutputTokens: 100}
		}
		return llmtest.Reply{Text: finalAnswer, InputTokens: 3500, OutputTokens: 40}
	}
}

// cmdAgentProgram is the cmd row's agent: a small program that speaks Chat Completions to the
// gateway with one tool, shell, runs what the model asks and prints the model's last answer.
const cmdAgentProgram = `#!/usr/bin/python3
import json, os, subprocess, sys, urllib.request
prompt = open(sys.argv[1]).read()
base, key, model = os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"], os.environ["VULNBENCH_MODEL"]
tools = [{"type": "function", "function": {"name": "shell", "description": "run a shell command",
          "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}]
msgs = [{"role": "user", "content": prompt}]
for _ in range(8):
    body = json.dumps({"model": model, "messages": msgs, "tools": tools}).encode()
    req = urllib.request.Request(base + "/chat/completions", data=body, headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    m = json.load(urllib.request.urlopen(req, timeout=300))["choices"][0]["message"]
    calls = m.get("tool_calls") or []
    msgs.append({"role": "assistant", "content": m.get("content"), **({"tool_calls": calls} if calls else {})})
    if not calls:
        print(m.get("content") or "")
        sys.exit(0)
    for c in calls:
        cmd = json.loads(c["function"]["arguments"])["command"]
        try:
            r = subprocess.run(cmd, shell=True, capture_output=True, timeout=120)
            out = (r.stdout + r.stderr).decode(errors="replace")[-20000:]
        except Exception as e:
            out = "error: %s" % e
        msgs.append({"role": "tool", "tool_call_id": c["id"], "content": out})
print("no answer")
sys.exit(1)
`

// cmdAgent writes the cmd row's agent in dir and names it with --agent-cmd.
func cmdAgent(dir string) ([]string, error) {
	p := filepath.Join(dir, "agent.py")
	if err := os.WriteFile(p, []byte(cmdAgentProgram), 0o755); err != nil {
		return nil, err
	}
	return []string{"--agent-cmd", p + " {prompt_file}"}, nil
}
