package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// fakeModel answers from the case id written into each case's code; it fails a share of requests
// with the faults providers really send, and counts the good answers it gave per case: each one
// is a paid answer.
type fakeModel struct {
	mu       sync.Mutex
	rng      *rand.Rand
	faultP   float64
	paid     map[string]int
	latency  time.Duration
	tokensIn int
}

var caseRE = regexp.MustCompile(`case (c\d+)`)

func newFake(faultP float64) *fakeModel {
	return &fakeModel{rng: rand.New(rand.NewPCG(1, 2)), faultP: faultP, paid: map[string]int{}}
}

func (f *fakeModel) handle(r llmtest.Request) llmtest.Reply {
	m := caseRE.FindStringSubmatch(r.Prompt())
	id := "?"
	if m != nil {
		id = m[1]
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rng.Float64() < f.faultP {
		switch f.rng.IntN(4) {
		case 0:
			return llmtest.Reply{Status: 429, RetryAfter: 5 * time.Millisecond}
		case 1:
			return llmtest.Reply{Status: 500}
		case 2:
			return llmtest.Reply{Malformed: true}
		default:
			return llmtest.Reply{Drop: true}
		}
	}
	f.paid[id]++
	n := 0
	fmt.Sscanf(id, "c%d", &n)
	text := fmt.Sprintf(`{"vulnerable": %v, "cwe": "CWE-787", "confidence": 0.8, "reason": "length unchecked"}`, n%3 != 0)
	if n%25 == 7 {
		text = "I am not sure what you want me to say." // unparseable: a failed verdict
	}
	return llmtest.Reply{Text: text, Latency: f.latency, InputTokens: 1000, OutputTokens: 100}
}

func (f *fakeModel) paidTotal() (cases, answers int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.paid {
		cases++
		answers += n
	}
	return
}

func writeLLMSuite(t *testing.T, dir string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		label := []string{"vul", "ben"}[i%2]
		fmt.Fprintf(&b, `{"id":"c%04d","kind":"function","label":%q,"pair":"p%d","cwe":["CWE-787"],"language":"c","code":"int f%d(char *s) {\n  /* case c%04d */\n  char b[8];\n  strcpy(b, s);\n  return 0;\n}"}`+"\n", i, label, i/2, i, i)
	}
	path := filepath.Join(dir, "llm.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const prices = "openai:fake-model: {input: 5, output: 50}\n" // 1000 in + 100 out = $0.005 + $0.005 a case

func llmArgs(suitePath, db, base, runID string, extra ...string) []string {
	return append([]string{"run", "--suite", suitePath, "--subject", "llm", "--model", "openai:fake-model",
		"--base-url", base, "--db", db, "--run-id", runID, "--retry-base", "2ms", "--prices", "prices.yaml"}, extra...)
}

func TestLLMRunWithFaultsLosesNothingAndRerunIsFree(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	suitePath := writeLLMSuite(t, dir, 500)
	fake := newFake(0.2)
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	db := filepath.Join(dir, "v.db")

	code, out1, errOut := run(t, dir, llmArgs(suitePath, db, srv.BaseURL(), "r1", "--concurrency", "16", "--max-retries", "8")...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	status := map[verdict.Status]int{}
	retries := 0
	seen := map[string]int{}
	st.Verdicts(context.Background(), "r1", func(v verdict.Verdict) error {
		seen[v.CaseID]++
		status[v.Status]++
		retries += v.Usage.Retries
		if v.Status == verdict.Error && v.Reason == "" {
			t.Errorf("%s: error without a reason", v.CaseID)
		}
		if v.Status == verdict.Failed && v.Raw == "" {
			t.Errorf("%s: failed without the raw answer", v.CaseID)
		}
		return nil
	})
	if len(seen) != 500 {
		t.Errorf("%d cases stored, want 500", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s stored %d times", id, n)
		}
	}
	// Cases c0007, c0032, ... answer nonsense: 20 of 500 are failed.
	if status[verdict.Failed] != 20 || status[verdict.OK]+status[verdict.Failed]+status[verdict.Error] != 500 {
		t.Errorf("statuses %v, want 20 failed and the rest ok or error", status)
	}
	r1, err := st.GetRun(context.Background(), "r1")
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Describe map[string]any    `json:"subject_describe"`
		Config   map[string]any    `json:"subject_config"`
		Flags    map[string]string `json:"flags"`
		Version  string            `json:"subject_version"`
	}
	if err := json.Unmarshal(r1.Manifest, &man); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(strings.TrimSuffix(srv.BaseURL(), "/v1"), "http://")
	if man.Describe["provider"] != "openai" || man.Describe["model"] != "fake-model" || man.Describe["base_url_host"] != host ||
		len(fmt.Sprint(man.Describe["prompt_hash"])) != 64 || man.Config["prompt"] != "vanilla" || man.Config["temperature"] != 0.0 ||
		len(man.Describe["templates"].(map[string]any)) == 0 || man.Flags["base-url"] != srv.BaseURL() ||
		man.Config["model"] != "openai:fake-model" || man.Version == "" {
		t.Errorf("manifest lacks what reproduces the run: %s", r1.Manifest)
	}
	cases, answers := fake.paidTotal()
	if cases != 500 || answers != 500 {
		t.Errorf("the model answered %d cases %d times: a completed case was paid twice or lost", cases, answers)
	}
	t.Logf("500 cases, 20%% faults: %v; %d retries; %d requests served; %s", status, retries, srv.Requests(), strings.TrimSpace(errOut[strings.Index(errOut, "usage:"):]))
	if retries == 0 || !strings.Contains(errOut, " retries, ") {
		t.Errorf("retries not visible: %d in verdicts; stderr:\n%s", retries, errOut)
	}
	if !regexp.MustCompile(`usage: \d+ model calls, 0 cache hits, [1-9]\d* retries, .* waiting; tokens 500000 in \(0 cached\), 50000 out; cost \$5\.0000`).MatchString(errOut) {
		t.Errorf("usage line missing or wrong:\n%s", errOut)
	}

	// A rerun of the same configuration is answered from the cache: not one call, same scores.
	before := srv.Requests()
	code, out2, errOut2 := run(t, dir, llmArgs(suitePath, db, srv.BaseURL(), "r2", "--concurrency", "16")...)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, errOut2)
	}
	if srv.Requests() != before {
		t.Errorf("the rerun made %d model calls, want 0", srv.Requests()-before)
	}
	if regexp.MustCompile(`\br1\b`).ReplaceAllString(out1, "r2") != out2 { // the run id heads the score column too
		t.Errorf("scores differ between the run and its rerun:\n%s\n---\n%s", out1, out2)
	}
	if !strings.Contains(errOut2, "500 cache hits") {
		t.Errorf("rerun usage does not show the cache hits:\n%s", errOut2)
	}
}

func TestLLMFatalFaultsFailFast(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	suitePath := writeLLMSuite(t, dir, 200)
	tests := []struct {
		name  string
		srv   *llmtest.Server
		model string
		want  string
	}{
		{"401", llmtest.NewOpenAI(llmtest.Fixed("x"), llmtest.WithBadKey("test-key")), "openai:fake-model",
			"openai rejected the API key (HTTP 401): check the key in OPENAI_API_KEY"},
		{"unknown model", llmtest.NewOpenAI(llmtest.Fixed("x"), llmtest.WithModels("gpt-4o-mini")), "openai:fake-model",
			"openai does not know the model or endpoint (HTTP 404): check --model and --base-url"},
	}
	t.Setenv("OPENAI_API_KEY", "test-key")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.srv.Close()
			db := filepath.Join(dir, tt.name+".db")
			code, _, errOut := run(t, dir, llmArgs(suitePath, db, tt.srv.BaseURL(), "f", "--concurrency", "4")...)
			if code != 1 || strings.Count(errOut, tt.want) != 1 {
				t.Errorf("exit %d, want 1 and the message once; stderr:\n%s", code, errOut)
			}
			if n := tt.srv.Requests(); n > 4 {
				t.Errorf("%d requests for a fatal fault, want at most one per worker (4)", n)
			}
			st, _ := store.Open(context.Background(), db)
			defer st.Close()
			stored := 0
			st.Verdicts(context.Background(), "f", func(verdict.Verdict) error { stored++; return nil })
			if stored != 0 {
				t.Errorf("%d verdicts stored for a run that could not start", stored)
			}
		})
	}
}

func TestLLMMaxCostStopsWithinOneBatch(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	suitePath := writeLLMSuite(t, dir, 300)
	fake := newFake(0)
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	db := filepath.Join(dir, "v.db")
	const concurrency, perCase, limit = 8, 0.01, 0.50
	code, _, errOut := run(t, dir, llmArgs(suitePath, db, srv.BaseURL(), "m", "--concurrency", fmt.Sprint(concurrency), "--max-cost", fmt.Sprint(limit))...)
	if code != 1 || !strings.Contains(errOut, "*** STOPPED: --max-cost $0.5000 reached") || !strings.Contains(errOut, "--resume m") {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	spent, _ := spentOf(st, context.Background(), "m")
	st.Close()
	// Stopped within one in-flight batch: spent + at most one more case per worker.
	if spent < limit-concurrency*perCase || spent > limit+concurrency*perCase {
		t.Errorf("spent $%.4f with a $%.2f cap and %d workers at $%.2f a case", spent, limit, concurrency, perCase)
	}
	t.Logf("cap $%.2f, concurrency %d, $%.2f a case: stopped at $%.4f (%d cases)", limit, concurrency, perCase, spent, int(spent/perCase+0.5))
	// Resuming with a higher cap finishes the run, paying only for the cases not done.
	code, _, errOut = run(t, dir, "run", "--resume", "m", "--db", db, "--max-cost", "10", "--prices", "prices.yaml")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	if cases, answers := fake.paidTotal(); cases != 300 || answers != 300 {
		t.Errorf("paid %d answers for %d cases, want 300 for 300", answers, cases)
	}
}

// TestAPIKeyNeverLeaks plants a key and looks for it everywhere vulnbench writes.
func TestAPIKeyNeverLeaks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	suitePath := writeLLMSuite(t, dir, 60)
	const key = "sk-planted-7f3a9c1e-DO-NOT-LEAK"
	fake := newFake(0.3)
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	bad := llmtest.NewOpenAI(llmtest.Fixed("x"), llmtest.WithBadKey(key))
	defer bad.Close()
	t.Setenv("OPENAI_API_KEY", key)
	db := filepath.Join(dir, "v.db")
	var outputs []string
	for _, args := range [][]string{
		llmArgs(suitePath, db, srv.BaseURL()+"?token=x", "k1", "--out", "out.jsonl", "--max-retries", "1"),
		llmArgs(suitePath, db, bad.BaseURL(), "k2"),
		{"score", "--suite", suitePath, "--db", db, "--run", "k1", "--format", "json"},
		{"runs", "--db", db},
	} {
		_, o, e := run(t, dir, args...)
		outputs = append(outputs, o, e)
	}
	if got := srv.Log(); len(got) == 0 || got[0].APIKey != key {
		t.Fatal("the key was not sent to the server: the test would prove nothing")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		outputs = append(outputs, string(b))
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("the API key is in %s", filepath.Base(f))
		}
	}
	for _, o := range outputs {
		if strings.Contains(o, key) || strings.Contains(o, "token=x") {
			t.Errorf("the API key or a URL secret is in the output:\n%s", o)
		}
	}
}

// TestLLMKillAndResumePaysOnlyForMissingCases kills the real binary mid-run and resumes it.
func TestLLMKillAndResumePaysOnlyForMissingCases(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	suitePath := writeLLMSuite(t, dir, 200)
	fake := newFake(0)
	fake.latency = 15 * time.Millisecond
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	db := filepath.Join(dir, "v.db")
	cmd := exec.Command(bin, llmArgs(suitePath, db, srv.BaseURL(), "k", "--concurrency", "4")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=test-key")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stored := killAfter(t, cmd, db, "k", 50)
	_, paidBefore := fake.paidTotal()
	if stored >= 200 {
		t.Fatal("finished before the kill")
	}
	resume := exec.Command(bin, "run", "--resume", "k", "--db", db, "--prices", "prices.yaml", "--retry-base", "2ms")
	resume.Dir = dir
	resume.Env = cmd.Env
	out, err := resume.CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	_, paidAfter := fake.paidTotal()
	hits := 0
	if m := regexp.MustCompile(`(\d+) cache hits`).FindSubmatch(out); m != nil {
		fmt.Sscan(string(m[1]), &hits)
	}
	// The resume pays only for cases not stored at the kill, less those whose answer had
	// reached the cache before the kill.
	if paid := paidAfter - paidBefore; paid+hits != 200-stored {
		t.Errorf("resume paid %d answers and hit the cache %d times for %d missing cases\n%s", paid, hits, 200-stored, out)
	}
	if n := storedUnits(db, "k"); n != 200 {
		t.Errorf("%d units stored after the resume, want 200", n)
	}
	t.Logf("killed with %d of 200 stored; resume paid %d, cache hits %d", stored, paidAfter-paidBefore, hits)
}

// TestLLMOneCaseRefusedDoesNotStopTheRun answers one case's request with OpenAI's context
// overflow: that case gets an error verdict with the provider's reason, the others are judged,
// and a resume that retries the errors asks again without aborting.
func TestLLMOneCaseRefusedDoesNotStopTheRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644)
	const n = 40
	suitePath := writeLLMSuite(t, dir, n)
	fake := newFake(0)
	const overflow = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130571 tokens. Please reduce the length of the messages."
	var refused sync.Map
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.Prompt(), "case c0013") {
			v, _ := refused.LoadOrStore("c0013", new(int))
			*v.(*int)++
			return llmtest.Reply{Status: 400, ErrorCode: "context_length_exceeded", ErrorParam: "messages", ErrorMessage: overflow}
		}
		return fake.handle(r)
	})
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	db := filepath.Join(dir, "v.db")
	// Concurrency 1 and the refused case among the first: the refusal may come first of all.
	code, _, errOut := run(t, dir, llmArgs(suitePath, db, srv.BaseURL(), "ctx", "--concurrency", "1")...)
	if code != 0 {
		t.Fatalf("run: exit %d, want 0 (a run with error verdicts)\n%s", code, errOut)
	}
	statuses := func() (map[verdict.Status]int, map[string]string) {
		st, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		status := map[verdict.Status]int{}
		reasons := map[string]string{}
		st.Verdicts(context.Background(), "ctx", func(v verdict.Verdict) error {
			status[v.Status]++
			if v.Status == verdict.Error {
				reasons[v.CaseID] = v.Reason
			}
			return nil
		})
		return status, reasons
	}
	status, reasons := statuses()
	// c0007, c0032 answer nonsense (failed); c0013 is refused.
	if d := cmp.Diff(map[verdict.Status]int{verdict.OK: n - 3, verdict.Failed: 2, verdict.Error: 1}, status); d != "" {
		t.Errorf("statuses (-want +got):\n%s\n%s", d, errOut)
	}
	if r := reasons["c0013"]; !strings.Contains(r, "maximum context length is 128000 tokens") || !strings.Contains(r, "openai") {
		t.Errorf("c0013's reason %q does not carry the provider's message", r)
	}
	if !strings.Contains(errOut, "1 errors") {
		t.Errorf("stderr does not count the error:\n%s", errOut)
	}

	// The resume redoes only the refused unit, which is refused again as a second attempt; the run
	// completes (state done, exit 0: it has scored verdicts), not aborted, and both attempts stay.
	code, _, errOut = run(t, dir, "run", "--resume", "ctx", "--retry-errors", "--db", db, "--prices", "prices.yaml", "--retry-base", "2ms")
	if code != 0 || strings.Contains(errOut, "aborted") || !strings.Contains(errOut, "1 units in") {
		t.Fatalf("resume --retry-errors: exit %d\n%s", code, errOut)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.GetRun(context.Background(), "ctx")
	if as, _ := st.Attempts(context.Background(), "ctx", "c0013", 0); len(as) != 2 || as[0].Status != verdict.Error || as[1].Attempt != 1 {
		t.Errorf("attempts of the refused unit: %+v; want two error attempts, 0 and 1", as)
	}
	st.Close()
	if err != nil || r.State != store.StateDone {
		t.Errorf("run state after the resume: %v %v, want done", r, err)
	}
	if v, _ := refused.Load("c0013"); v == nil || *v.(*int) != 2 {
		t.Errorf("the refused case was asked %v times, want 2 (once per run, never retried within one)", v)
	}
	if status, _ := statuses(); status[verdict.Error] != 1 || status[verdict.OK] != n-3 {
		t.Errorf("after the resume: %v", status)
	}
}

// TestLLMReasoningModelRuns runs an OpenAI reasoning model against a fake that refuses what
// OpenAI's reasoning models refuse (max_tokens, temperature, logprobs): the run completes, the
// manifest records that no logprobs were asked for, and the cost names its prices' date.
func TestLLMReasoningModelRuns(t *testing.T) {
	dir := t.TempDir()
	suitePath := writeLLMSuite(t, dir, 30)
	fake := newFake(0)
	srv := llmtest.NewOpenAI(fake.handle)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	db := filepath.Join(dir, "v.db")
	code, _, errOut := run(t, dir, "run", "--suite", suitePath, "--subject", "llm", "--model", "openai:o3-mini-2025-01-31",
		"--base-url", srv.BaseURL(), "--db", db, "--run-id", "o3", "--max-tokens", "2000", "--retry-base", "2ms")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "30 units in") || !strings.Contains(errOut, " 0 errors") {
		t.Errorf("not every case was judged:\n%s", errOut)
	}
	// o3-mini: 1.10 in, 4.40 out per million; 30 x (1000 in + 100 out) = 0.033 + 0.0132.
	if !strings.Contains(errOut, "cost $0.0462 (prices of 2025)") {
		t.Errorf("cost without its prices' date:\n%s", errOut)
	}
	for _, sent := range srv.Log() {
		if sent.Temperature != nil || sent.Logprobs || !strings.Contains(string(sent.Raw), `"max_completion_tokens":2000`) {
			t.Fatalf("sent %s", sent.Raw)
		}
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.GetRun(context.Background(), "o3")
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Describe map[string]any `json:"subject_describe"`
	}
	if err := json.Unmarshal(r.Manifest, &man); err != nil {
		t.Fatal(err)
	}
	if man.Describe["logprobs"] != false {
		t.Errorf("manifest records logprobs %v, want false", man.Describe["logprobs"])
	}
}
