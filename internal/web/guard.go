package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Guard wraps the viewer's handler so that a web page cannot read it through the browser:
//   - the Host header must be an IP literal (which DNS rebinding cannot produce), localhost, or
//     one of hosts (serve --allow-host); otherwise 421 Misdirected Request;
//   - a cross-origin request is refused (403): an Origin that is not the Host's own, or a
//     Sec-Fetch-Site other than same-origin or none, except a plain top-level navigation (GET or
//     HEAD of a document: following a link, which lets no page read the answer).
func Guard(h http.Handler, hosts []string) http.Handler {
	allowed := map[string]bool{"localhost": true}
	for _, n := range hosts {
		allowed[strings.ToLower(strings.TrimSuffix(n, "."))] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, allowed) {
			http.Error(w, fmt.Sprintf("vulnbench serve does not answer for host %q: open it by its address (127.0.0.1), or start it with --allow-host NAME", r.Host), http.StatusMisdirectedRequest)
			return
		}
		if why := crossOrigin(r); why != "" {
			http.Error(w, "vulnbench serve refuses cross-origin requests: "+why, http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func hostAllowed(hostport string, allowed map[string]bool) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	return host != "" && (net.ParseIP(host) != nil || allowed[host])
}

// crossOrigin says why r comes from another origin, "" when it does not.
func crossOrigin(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
			return fmt.Sprintf("Origin %q is not this viewer's", o)
		}
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		nav := r.Header.Get("Sec-Fetch-Mode") == "navigate" && (r.Method == http.MethodGet || r.Method == http.MethodHead)
		if !nav || (r.Header.Get("Sec-Fetch-Dest") != "document" && r.Header.Get("Sec-Fetch-Dest") != "") {
			return fmt.Sprintf("Sec-Fetch-Site %s", site)
		}
	}
	return ""
}

// CheckBind refuses to listen on addr unless it is a loopback address or allowRemote: anyone who
// can reach the viewer reads the store (code, traces).
func CheckBind(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q is not host:port: %w", addr, err)
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); (ip != nil && ip.IsLoopback()) || strings.EqualFold(host, "localhost") || allowRemote {
		return nil
	}
	what := host
	if host == "" {
		what = "every interface"
	}
	return fmt.Errorf("--addr %s listens on %s, not a loopback address: anyone who can reach it reads the store's code and traces; add --allow-remote to serve it there anyway", addr, what)
}

// Serve serves h on ln until ctx ends, then shuts the server down, giving the requests in
// flight 5 seconds.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
