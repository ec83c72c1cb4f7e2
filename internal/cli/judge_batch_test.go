package cli_test

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/llmtest"
)

// judgePrices lists the judge at $0.01 a call (1,000 tokens in, 100 out), $0.005 at batch prices.
const judgePrices = "batch: 0.5\nopenai:judge: {input: 5, output: 50}\n"

// pricedJudge is judgeModel's good judge, with the tokens of every reply counted; answered
// counts its replies (online or in a batch).
func pricedJudge(t *testing.T, answered *atomic.Int64) llmtest.Handler {
	h := judgeModel(t, func(ref float64) float64 { return ref })
	return func(r llmtest.Request) llmtest.Reply {
		answered.Add(1)
		rep := h(r)
		rep.InputTokens, rep.OutputTokens = 1000, 100
		return rep
	}
}

// appsecRun builds the AppSecBench suite in dir and runs the fake subject on it into each of
// dbs (the same answers in each), as run asb1.
func appsecRun(t *testing.T, dir string, dbs ...string) {
	t.Helper()
	if code, out, errOut := run(t, dir, "suite", "build", "appsec", "--seed", "42", "--out", "asb"); code != 0 {
		t.Fatalf("suite build: exit %d\n%s\n%s", code, out, errOut)
	}
	os.WriteFile(filepath.Join(dir, "judge-prices.yaml"), []byte(judgePrices), 0o644)
	subj := llmtest.NewOpenAI(appsecModel)
	defer subj.Close()
	for _, db := range dbs {
		code, _, errOut := run(t, dir, "run", "--suite", "asb/suite.jsonl", "--subject", "llm", "--model", "openai:fake-model",
			"--base-url", subj.BaseURL(), "--db", db, "--run-id", "asb1", "--concurrency", "8", "--no-score")
		if code != 0 {
			t.Fatalf("run: exit %d\n%s", code, errOut)
		}
	}
}

func judgeArgs(db, base string, extra ...string) []string {
	return append([]string{"score", "--run", "asb1", "--db", db, "--judge-model", "openai:judge", "--base-url", base,
		"--judge-prices", "judge-prices.yaml", "--fix-checks=false", "--format", "json"}, extra...)
}

// judgeFigures are the judged score's figures, and what its judge cost.
type judgeFigures struct {
	appsec map[string]any // the appsec section, the judge's calls and cost taken out
	calls  int
	hits   int
	cost   float64
}

func readJudgeFigures(t *testing.T, out string) judgeFigures {
	t.Helper()
	var js struct {
		AppSec map[string]any `json:"appsec"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || js.AppSec == nil {
		t.Fatalf("score json: %v\n%s", err, out)
	}
	j, _ := js.AppSec["judge"].(map[string]any)
	f := judgeFigures{appsec: js.AppSec}
	f.calls, _ = asInt(j["calls"])
	f.hits, _ = asInt(j["cache_hits"])
	f.cost, _ = j["cost_usd"].(float64)
	delete(j, "calls")
	delete(j, "cache_hits")
	delete(j, "cost_usd")
	return f
}

func asInt(v any) (int, bool) {
	f, ok := v.(float64)
	return int(f), ok
}

// TestJudgeBatch: score --judge-batch on the AppSec suite against the fake's Batch API makes
// no online call, submits every judge request (the calibration's and the answers') once, and
// scores exactly what the online judge scores on the same answers, at half its cost; a second
// score submits nothing and answers every call from the cache. Requests that expire fail the
// score (not scored) and the next score submits those again, and only those.
func TestJudgeBatch(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OPENAI_API_KEY", "test-key")
	noPrograms(t)
	appsecRun(t, dir, "online.db", "batch.db", "expire.db")

	var onlineN, batchN, expN atomic.Int64
	online := llmtest.NewOpenAI(pricedJudge(t, &onlineN), llmtest.WithoutLog())
	defer online.Close()
	code, out, errOut := run(t, dir, judgeArgs("online.db", online.BaseURL())...)
	if code != 0 {
		t.Fatalf("online judge: exit %d\n%s", code, errOut)
	}
	want := readJudgeFigures(t, out)
	if want.calls < 1000 || want.hits != 0 || math.Abs(want.cost-0.01*float64(want.calls)) > 1e-9 {
		t.Fatalf("online judge: %d calls, %d from the cache, $%.4f: want over 1,000, none, $0.01 each", want.calls, want.hits, want.cost)
	}

	srv := llmtest.NewOpenAI(pricedJudge(t, &batchN), llmtest.WithBatches(llmtest.BatchOptions{Polls: 3}), llmtest.WithoutLog())
	defer srv.Close()
	code, out, errOut = run(t, dir, judgeArgs("batch.db", srv.BaseURL(), "--judge-batch", "--batch-poll", "1ms")...)
	if code != 0 {
		t.Fatalf("batch judge: exit %d\n%s", code, errOut)
	}
	got := readJudgeFigures(t, out)
	if d := cmp.Diff(want.appsec, got.appsec); d != "" {
		t.Errorf("the batch judge's scores differ from the online judge's (-online +batch):\n%s", d)
	}
	subs, twice := submissions(srv)
	if len(subs) != int(onlineN.Load()) || twice != 0 || batchN.Load() != int64(len(subs)) {
		t.Errorf("%d requests submitted (%d more than once), %d answered: want the online judge's %d, once each, and no more answered (none online)",
			len(subs), twice, batchN.Load(), onlineN.Load())
	}
	if got.calls != want.calls || got.hits != 0 || math.Abs(got.cost-want.cost/2) > 1e-9 {
		t.Errorf("batch judge: %d calls, %d from the cache, $%.4f: want %d, 0, $%.4f (half the online cost)", got.calls, got.hits, got.cost, want.calls, want.cost/2)
	}
	if !strings.Contains(errOut, "submitted; polling every 1ms") || !strings.Contains(errOut, "completed") {
		t.Errorf("batch judge's progress:\n%s", errOut)
	}

	batches := srv.BatchesCreated()
	code, out, errOut = run(t, dir, judgeArgs("batch.db", srv.BaseURL(), "--judge-batch", "--batch-poll", "1ms")...)
	again := readJudgeFigures(t, out)
	if code != 0 || len(srv.BatchSubmissions()) != len(subs) || srv.BatchesCreated() != batches || again.hits != again.calls || again.cost != 0 ||
		!strings.Contains(errOut, "0 submitted") {
		t.Errorf("a second score: exit %d, %d requests submitted in %d batches (was %d in %d), %d of %d calls from the cache, $%.4f\n%s",
			code, len(srv.BatchSubmissions()), srv.BatchesCreated(), len(subs), batches, again.hits, again.calls, again.cost, errOut)
	}
	if d := cmp.Diff(want.appsec, again.appsec); d != "" {
		t.Errorf("the second score differs (-online +second):\n%s", d)
	}

	// Expired requests: the score fails and scores nothing; the next one submits them alone.
	var expire atomic.Bool
	expire.Store(true)
	exp := llmtest.NewOpenAI(pricedJudge(t, &expN), llmtest.WithoutLog(), llmtest.WithBatches(llmtest.BatchOptions{
		Expire: func(id string) bool { return expire.Load() && strings.HasPrefix(id, "0") }}))
	defer exp.Close()
	code, out, errOut = run(t, dir, judgeArgs("expire.db", exp.BaseURL(), "--judge-batch", "--batch-poll", "1ms")...)
	if code != 1 || out != "" || !strings.Contains(errOut, "the batch expired before this request was processed (the next score submits it again)") {
		t.Errorf("expired requests: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	expire.Store(false)
	code, out, errOut = run(t, dir, judgeArgs("expire.db", exp.BaseURL(), "--judge-batch", "--batch-poll", "1ms")...)
	if code != 0 {
		t.Fatalf("after the expiry: exit %d\n%s", code, errOut)
	}
	resent, expired := 0, 0
	for id, n := range exp.BatchSubmissions() {
		if strings.HasPrefix(id, "0") {
			expired++
		}
		if n == 2 {
			resent++
		}
	}
	after := readJudgeFigures(t, out)
	if len(exp.BatchSubmissions()) != len(subs) || expired == 0 || resent != expired || exp.BatchesCreated() != 2 || expN.Load() != int64(len(subs)) {
		t.Errorf("%d requests, %d expired, %d sent twice, in %d batches, %d answered: want %d, those expired sent twice, in 2, each answered once",
			len(exp.BatchSubmissions()), expired, resent, exp.BatchesCreated(), expN.Load(), len(subs))
	}
	if d := cmp.Diff(want.appsec, after.appsec); d != "" {
		t.Errorf("the score after the expiry differs (-online +after):\n%s", d)
	}
	t.Logf("online: %d judge calls, $%.4f; batch: %d submitted once each in %d batch(es), $%.4f; again: %d of %d from the cache; %d expired, sent again alone",
		want.calls, want.cost, len(subs), batches, got.cost, again.hits, again.calls, expired)
}

// TestJudgeBatchKilled: score --judge-batch killed with SIGKILL while its batch is in flight,
// then run again: the second polls the stored batch and submits nothing new.
func TestJudgeBatchKilled(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	t.Setenv("OPENAI_API_KEY", "test-key")
	noPrograms(t)
	appsecRun(t, dir, "v.db")
	var answered atomic.Int64
	srv := llmtest.NewOpenAI(pricedJudge(t, &answered), llmtest.WithBatches(llmtest.BatchOptions{Polls: 100}), llmtest.WithoutLog())
	defer srv.Close()
	args := judgeArgs("v.db", srv.BaseURL(), "--judge-batch", "--batch-poll", "10ms")
	first := exec.Command(bin, args...)
	first.Dir = dir
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for srv.BatchPolls() < 10 {
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatalf("the batch was polled %d times in 2 minutes, want 10", srv.BatchPolls())
		}
		time.Sleep(5 * time.Millisecond)
	}
	first.Process.Kill()
	first.Wait()
	subs := len(srv.BatchSubmissions())

	second := exec.Command(bin, args...)
	second.Dir = dir
	var stderr strings.Builder
	second.Stderr = &stderr
	out, err := second.Output()
	if err != nil {
		t.Fatalf("the score after the kill: %v\n%s", err, stderr.String())
	}
	f := readJudgeFigures(t, string(out))
	_, twice := submissions(srv)
	if len(srv.BatchSubmissions()) != subs || twice != 0 || srv.BatchesCreated() != 1 || answered.Load() != int64(subs) || f.calls != subs || f.hits != 0 ||
		math.Abs(f.cost-0.005*float64(subs)) > 1e-9 {
		t.Errorf("after the kill: %d requests submitted (%d before it, %d more than once) in %d batches, %d answered; %d judge calls, %d from the cache, $%.4f: want no new one, 1 batch, each answered once (none online), every call answered by the batch at $0.005\n%s",
			len(srv.BatchSubmissions()), subs, twice, srv.BatchesCreated(), answered.Load(), f.calls, f.hits, f.cost, stderr.String())
	}
	if !strings.Contains(stderr.String(), "in batches made before, 0 submitted") {
		t.Errorf("the score after the kill does not say it polls the batch made before:\n%s", stderr.String())
	}
	t.Logf("%d judge requests, killed at 10 polls: 1 batch, %d submissions, $%.4f", subs, len(srv.BatchSubmissions()), f.cost)
}
