package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// APIError is a provider's refusal or failure, classified for retrying.
type APIError struct {
	Provider   string
	Status     int    // HTTP status; 0 when no response arrived
	Type       string // provider error type, e.g. rate_limit_error
	Message    string
	RetryAfter time.Duration // from Retry-After / retry-after-ms, 0 when absent
	Cause      error
}

func (e *APIError) Error() string {
	msg := e.Message
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	switch {
	case e.Status == 0:
		return fmt.Sprintf("%s: %s", e.Provider, msg)
	case e.Type != "":
		return fmt.Sprintf("%s: HTTP %d %s: %s", e.Provider, e.Status, e.Type, msg)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, msg)
}

func (e *APIError) Unwrap() error { return e.Cause }

// Retryable reports whether trying again may succeed: rate limits, server errors, timeouts and
// broken connections. Bad requests, authentication, permission and unknown models are fatal:
// repeating them only repeats the failure.
func (e *APIError) Retryable() bool {
	switch {
	case e.Status == 429 || e.Status == 408 || e.Status == 409 || e.Status >= 500:
		return true
	case e.Status == 0:
		return true // no response: transport trouble
	}
	return false
}

// Fatal says what to check for a fatal error, naming the provider.
func (e *APIError) Fatal() string {
	switch e.Status {
	case 401:
		return fmt.Sprintf("%s rejected the API key (HTTP 401): check the key in %s", e.Provider, KeyEnv(e.Provider))
	case 403:
		return fmt.Sprintf("%s refused access (HTTP 403): check that the key's account may use this model", e.Provider)
	case 404:
		return fmt.Sprintf("%s does not know the model or endpoint (HTTP 404): check --model and --base-url", e.Provider)
	case 400:
		return fmt.Sprintf("%s rejected the request (HTTP 400): %s", e.Provider, e.Message)
	}
	return e.Error()
}

// KeyEnv is the environment variable holding a provider's API key.
func KeyEnv(provider string) string {
	switch provider {
	case "anthropic":
		return "ANTHROPIC_API_KEY"
	}
	return "OPENAI_API_KEY"
}

// IsFatal reports whether err is an API error that retrying cannot fix.
func IsFatal(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && !ae.Retryable()
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

// retryAfter returns the wait a provider asked for, if any.
func retryAfter(err error) time.Duration {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.RetryAfter
	}
	return 0
}
