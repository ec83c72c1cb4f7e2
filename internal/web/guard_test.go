package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/web"
)

// The viewer answers only the names it serves (DNS rebinding: a page of evil.example whose name
// now points at 127.0.0.1 sends Host: evil.example) and refuses cross-origin use (issue 25,
// finding 1).
func TestGuardRefusesForeignHostsAndOrigins(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("the store")) })
	h := web.Guard(ok, []string{"viewer.internal"})
	for _, tc := range []struct {
		name   string
		host   string
		header map[string]string
		want   int
	}{
		{"loopback IP", "127.0.0.1:8080", nil, 200},
		{"localhost", "localhost:8080", nil, 200},
		{"IPv6 loopback", "[::1]:8080", nil, 200},
		{"an IP literal", "192.0.2.7:8080", nil, 200},
		{"an allowed name", "Viewer.Internal:8080", nil, 200},
		{"a rebound name", "evil.example:8080", nil, 421},
		{"a rebound name without a port", "evil.example", nil, 421},
		{"a localhost look-alike", "localhost.evil.example:8080", nil, 421},
		{"same origin", "127.0.0.1:8080", map[string]string{"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin"}, 200},
		{"typed in the address bar", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"}, 200},
		{"a link from another site", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, 200},
		{"a cross-site fetch", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}, 403},
		{"a same-site fetch from another port", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors"}, 403},
		{"a foreign Origin", "127.0.0.1:8080", map[string]string{"Origin": "http://evil.example"}, 403},
		{"an opaque Origin", "127.0.0.1:8080", map[string]string{"Origin": "null"}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/runs/r1/case?id=c", nil)
			r.Host = tc.host
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want || (tc.want != 200 && strings.Contains(w.Body.String(), "the store")) {
				t.Errorf("Host %s %v: %d %q; want %d", tc.host, tc.header, w.Code, w.Body.String(), tc.want)
			}
		})
	}
	r := httptest.NewRequest("POST", "/", strings.NewReader("x"))
	r.Host = "127.0.0.1:8080"
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.Header.Set("Sec-Fetch-Mode", "navigate")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 403 {
		t.Errorf("a cross-site form post: %d; want 403", w.Code)
	}
}

// Binding a non-loopback address needs --allow-remote, and says so.
func TestCheckBind(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:8080", false, true}, {"localhost:0", false, true}, {"[::1]:9000", false, true},
		{":8080", false, false}, {"0.0.0.0:8080", false, false}, {"192.0.2.7:8080", false, false},
		{"0.0.0.0:8080", true, true},
	} {
		err := web.CheckBind(tc.addr, tc.remote)
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "--allow-remote")) {
			t.Errorf("CheckBind(%q, %v) = %v; want ok %v (a refusal naming --allow-remote)", tc.addr, tc.remote, err, tc.ok)
		}
	}
}
