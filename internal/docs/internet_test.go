package docs_test

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// internet is a journey's network: an HTTPS proxy (HTTPS_PROXY) that answers for the hosts a
// new user's commands reach, with certificates of its own authority (SSL_CERT_FILE for Go,
// GIT_SSL_CAINFO for git): api.openai.com and api.anthropic.com are the journey's fake model
// providers; any other host is the folder $WORK/internet/HOST, its git repositories served by
// git http-backend (smart HTTP, as GitHub answers git) and its other files as a static server
// with ETag and Last-Modified (as OSV's bucket answers). Nothing leaves the machine.
type internet struct {
	ca       *x509.Certificate
	caKey    *ecdsa.PrivateKey
	caPEM    []byte
	dir      string // $WORK/internet
	upstream map[string]*url.URL
	ln       net.Listener
	srv      *http.Server

	mu       sync.Mutex
	leaves   map[string]*tls.Certificate
	requests map[string]*atomic.Int64 // by host
}

// authority is the test process's certificate authority, made once.
var authority = sync.OnceValues(func() (*x509.Certificate, *ecdsa.PrivateKey) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "vulnbench journeys' internet"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	return cert, key
})

// newInternet starts a journey's network over dir, with the model providers at their URLs.
func newInternet(dir string, providers map[string]string) (*internet, error) {
	ca, key := authority()
	n := &internet{ca: ca, caKey: key, dir: dir, upstream: map[string]*url.URL{},
		caPEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}),
		leaves: map[string]*tls.Certificate{}, requests: map[string]*atomic.Int64{}}
	for host, raw := range providers {
		u, err := url.Parse(raw)
		if err != nil {
			return nil, err
		}
		n.upstream[host] = u
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n.ln = ln
	n.srv = &http.Server{Handler: http.HandlerFunc(n.connect), ReadHeaderTimeout: 10 * time.Second}
	go n.srv.Serve(ln)
	return n, nil
}

func (n *internet) Close() { n.srv.Close() }

// ProxyURL is HTTPS_PROXY's value.
func (n *internet) ProxyURL() string { return "http://" + n.ln.Addr().String() }

// Requests counts the requests a host was sent.
func (n *internet) Requests(host string) int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c := n.requests[host]; c != nil {
		return c.Load()
	}
	return 0
}

// connect serves a CONNECT: the tunnel is TLS with a certificate for the host, and the requests
// inside it are answered by the host's handler.
func (n *internet) connect(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "journeys' internet: only HTTPS through CONNECT", http.StatusMethodNotAllowed)
		return
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "no hijacking", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	if _, err := rw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n"); err != nil || rw.Flush() != nil {
		conn.Close()
		return
	}
	tconn := tls.Server(&bufferedConn{Conn: conn, r: rw.Reader}, &tls.Config{
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return n.leaf(host) },
		NextProtos:     []string{"http/1.1"},
	})
	one := &oneConn{conn: tconn, done: make(chan struct{})}
	srv := &http.Server{Handler: n.handler(host), ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateClosed || s == http.StateHijacked {
				one.close()
			}
		}}
	go srv.Serve(one)
}

// handler answers for one host.
func (n *internet) handler(host string) http.Handler {
	n.mu.Lock()
	if n.requests[host] == nil {
		n.requests[host] = &atomic.Int64{}
	}
	count := n.requests[host]
	n.mu.Unlock()
	var h http.Handler
	if u, ok := n.upstream[host]; ok {
		h = httputil.NewSingleHostReverseProxy(u)
	} else {
		root := filepath.Join(n.dir, host)
		git := &cgi.Handler{Path: "/usr/lib/git-core/git-http-backend",
			Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + n.dir}}
		files := http.FileServer(http.Dir(root))
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := os.Stat(root); err != nil {
				http.Error(w, fmt.Sprintf("journeys' internet: no host %s", host), http.StatusBadGateway)
				return
			}
			if strings.HasSuffix(r.URL.Path, "/info/refs") || strings.HasSuffix(r.URL.Path, "/git-upload-pack") {
				git.ServeHTTP(w, r)
				return
			}
			files.ServeHTTP(w, r)
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		count.Add(1)
		h.ServeHTTP(w, r)
	})
}

// leaf is a certificate for host signed by the authority.
func (n *internet) leaf(host string) (*tls.Certificate, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c := n.leaves[host]; c != nil {
		return c, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, n.ca, &key.PublicKey, n.caKey)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der, n.ca.Raw}, PrivateKey: key}
	n.leaves[host] = c
	return c, nil
}

// bufferedConn reads what the hijacked connection's reader holds first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// oneConn is a listener of one connection: Accept returns it once, then waits until it closes.
type oneConn struct {
	conn net.Conn
	once sync.Once
	used atomic.Bool
	done chan struct{}
}

func (l *oneConn) Accept() (net.Conn, error) {
	if l.used.CompareAndSwap(false, true) {
		return l.conn, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConn) close()         { l.once.Do(func() { close(l.done) }) }
func (l *oneConn) Close() error   { l.close(); return nil }
func (l *oneConn) Addr() net.Addr { return l.conn.LocalAddr() }
