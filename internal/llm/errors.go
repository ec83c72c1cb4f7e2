package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrLimit, wrapped, says a unit reached one of its limits (steps, tokens, cost): the meter in
// front of a model refuses the call with it, and an agent stops there and answers with what it has.
// subject.ErrLimit is this error.
var ErrLimit = errors.New("unit limit reached")

// APIError is a provider's refusal or failure, classified for retrying and for the run: see
// [Classify].
type APIError struct {
	Provider string
	Status   int    // HTTP status; 0 when no response arrived; 200 for an answer that is a refusal
	Type     string // provider error type, e.g. rate_limit_error, invalid_request_error
	Code     string // OpenAI error.code, e.g. context_length_exceeded; "content_filter" for a filtered answer
	Param    string // the request parameter the provider names: OpenAI error.param, or Anthropic's "field: ..." prefix
	Message  string
	// RetryAfter is the wait the provider asked for (Retry-After, retry-after-ms); HasRetryAfter
	// tells "0: retry now" from "absent".
	RetryAfter    time.Duration
	HasRetryAfter bool
	// RateLimit is what the error's rate-limit headers said, nil when it sent none.
	RateLimit *RateLimit
	// FirstCall is set by the stack when no call of this model had succeeded yet in this process:
	// a request the provider refuses for one of its parameters is then refused for every case.
	FirstCall bool
	Cause     error
}

func (e *APIError) Error() string {
	msg := e.Message
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	what := e.Type
	if e.Code != "" && e.Code != e.Type {
		what = strings.TrimSpace(what + " " + e.Code)
	}
	switch {
	case e.Status == 0:
		return fmt.Sprintf("%s: %s", e.Provider, msg)
	case what != "":
		return fmt.Sprintf("%s: HTTP %d %s: %s", e.Provider, e.Status, what, msg)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, msg)
}

func (e *APIError) Unwrap() error { return e.Cause }

// Retryable reports whether trying again may succeed: rate limits, server errors, timeouts and
// broken connections. Anything else (a bad request, a refused key, an unknown model, an exhausted
// quota, a filtered answer) would only fail again.
func (e *APIError) Retryable() bool {
	switch {
	case e.quota():
		return false
	case e.Status == 429 || e.Status == 408 || e.Status == 409 || e.Status >= 500:
		return true
	case e.Status == 0:
		return true // no response: transport trouble
	}
	return false
}

// quota reports an exhausted balance: OpenAI's 429 insufficient_quota, Anthropic's 402.
func (e *APIError) quota() bool {
	return e.Status == 402 || e.Type == "insufficient_quota" || e.Code == "insufficient_quota" || e.Type == "billing_error"
}

// Class is what a fault means for a run.
type Class int

const (
	// Transient faults may pass: retry the call (429, 5xx, timeouts, broken connections). Once
	// the retries are spent, the case gets an error verdict and the run goes on.
	Transient Class = iota
	// PerCase faults concern one case's request (its input is too long, a content filter, a
	// malformed request): the case gets an error verdict with the provider's reason, and the run
	// goes on. A resume with --retry-errors asks again.
	PerCase
	// Fatal faults would be the same for every case: a rejected key (401, 403), an unknown model
	// (404), an exhausted quota, or a request parameter refused before any call succeeded. The
	// run stops.
	Fatal
)

func (c Class) String() string {
	switch c {
	case Transient:
		return "transient"
	case PerCase:
		return "per-case"
	}
	return "fatal"
}

// Classify says what err means for a run. Errors that are not API errors are transient when a
// retry may help (timeouts, broken connections) and per-case otherwise; a cancelled context is
// per-case (the engine decides what a cancelled run keeps).
func Classify(err error) Class {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Class()
	}
	if retryable(err) {
		return Transient
	}
	return PerCase
}

// Class implements [Classify] for one API error.
func (e *APIError) Class() Class {
	switch {
	case e.Status == 401 || e.Status == 403 || e.Status == 404 || e.quota():
		return Fatal
	case e.Retryable():
		return Transient
	case e.Status == 400 && e.FirstCall && !e.inputFault() && e.namesParameter():
		return Fatal
	}
	return PerCase
}

// inputFault reports a refusal of this request's input, whatever parameter it names: the prompt
// is over the context length or too large, or a content filter or policy refused it.
func (e *APIError) inputFault() bool {
	switch e.Status {
	case 413, 422:
		return true
	}
	switch e.Code {
	case "context_length_exceeded", "string_above_max_length", "invalid_prompt", "content_filter", "content_policy_violation":
		return true
	}
	if e.Type == "request_too_large" {
		return true
	}
	return inputFaultRE.MatchString(e.Message)
}

var inputFaultRE = regexp.MustCompile(`(?i)maximum context length|context[ _]length|context window|prompt is too long|too many (input )?tokens|content[ _]filter|content[ _]policy|content management policy|usage polic|flagged|safety system|invalid[ _]prompt|request too large|exceeds the maximum`)

// unsupportedRE matches messages that refuse a parameter, whatever the input.
var unsupportedRE = regexp.MustCompile(`(?i)unsupported (parameter|value)|is not supported with this model|not supported (with|by|for) (this|the) model|unrecognized request argument|extra inputs are not permitted|unknown parameter`)

// namesParameter reports a refusal that names a request parameter (not the messages): the same
// request shape would be refused for every case.
func (e *APIError) namesParameter() bool {
	if e.Code == "unsupported_parameter" || e.Code == "unsupported_value" {
		return true
	}
	if p := e.Param; p != "" && !strings.HasPrefix(p, "messages") && !strings.HasPrefix(p, "input") &&
		!strings.HasPrefix(p, "prompt") && !strings.HasPrefix(p, "system") {
		return true
	}
	return unsupportedRE.MatchString(e.Message)
}

// Fatal says what to check for a fatal error, naming the provider.
func (e *APIError) Fatal() string {
	switch {
	case e.Status == 401:
		return fmt.Sprintf("%s rejected the API key (HTTP 401): check the key in %s", e.Provider, KeyEnv(e.Provider))
	case e.Status == 403:
		return fmt.Sprintf("%s refused access (HTTP 403): check that the key's account may use this model", e.Provider)
	case e.Status == 404:
		return fmt.Sprintf("%s does not know the model or endpoint (HTTP 404): check --model and --base-url", e.Provider)
	case e.quota():
		return fmt.Sprintf("%s refused for lack of credit (HTTP %d): check the account's plan and billing", e.Provider, e.Status)
	case e.Status == 400 && e.Param != "":
		return fmt.Sprintf("%s rejected the request's %s parameter (HTTP 400): %s (if the model does not take it, say so in --prices; see --help)", e.Provider, e.Param, e.Message)
	case e.Status == 400:
		return fmt.Sprintf("%s rejected the request (HTTP 400): %s", e.Provider, e.Message)
	}
	return e.Error()
}

// KeyEnv is the environment variable holding a provider's API key.
func KeyEnv(provider string) string {
	switch provider {
	case "anthropic":
		return "ANTHROPIC_API_KEY"
	case "gemini":
		return "GEMINI_API_KEY"
	}
	return "OPENAI_API_KEY"
}

// IsFatal reports whether err should stop the run: [Classify] says [Fatal].
func IsFatal(err error) bool {
	return Classify(err) == Fatal
}

// retryable reports whether err is worth another attempt.
func retryable(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Retryable()
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, io.EOF) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// retryAfter returns the wait a provider asked for, and whether it asked.
func retryAfter(err error) (time.Duration, bool) {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.RetryAfter, ae.HasRetryAfter
	}
	return 0, false
}

type firstCall struct {
	next Model
	ok   atomic.Bool
}

// WithFirstCall marks the API errors of next that come before any of its calls succeeded
// ([APIError.FirstCall]), so that [Classify] can tell a request every case would send (a
// parameter the model refuses) from one case's input. Safe for concurrent use.
func WithFirstCall(next Model) Model { return &firstCall{next: next} }

func (f *firstCall) Info() Info { return f.next.Info() }

func (f *firstCall) Complete(ctx context.Context, req Request) (Response, error) {
	resp, err := f.next.Complete(ctx, req)
	if err == nil {
		f.ok.Store(true)
		return resp, nil
	}
	var ae *APIError
	if !f.ok.Load() && errors.As(err, &ae) {
		ae.FirstCall = true
	}
	return resp, err
}
