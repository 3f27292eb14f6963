package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// InsecureEnv, set to 1, lets a download use plain http from any address
// (a mirror on a private network): by default a download is https, or
// plain http from a loopback address only (127.0.0.1, ::1, localhost: a
// test's server, a mirror on this machine). Signatures and digests are
// checked either way; a redirect from https to http is refused always.
const InsecureEnv = "CRDLAB_INSECURE_DOWNLOAD"

// The http.Client's limits: each step of a request (connecting, the TLS
// handshake, the response's headers) and each read of a body must be done
// in its time, so that a server that stalls fails the download instead of
// holding it, and the lock, forever; the caller's context bounds the
// whole.
const (
	dialTimeout     = 30 * time.Second
	tlsTimeout      = 15 * time.Second
	headerTimeout   = 30 * time.Second
	idleConnTimeout = 90 * time.Second
	// idleReadTimeout: how long a body may send nothing.
	idleReadTimeout = 30 * time.Second
)

// errStalled: a body sent nothing for idleReadTimeout.
var errStalled = errors.New("the server sent nothing for too long")

// newClient is the client of downloads: http.DefaultTransport's proxy
// settings, with timeouts, and no redirect that the settings refuse.
func (s settings) newClient() *http.Client {
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   tlsTimeout,
			ResponseHeaderTimeout: headerTimeout,
			IdleConnTimeout:       idleConnTimeout,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: s.checkRedirect,
	}
}

// withRedirects is c (an Options.Client) with the settings' redirect
// check before its own.
func (s settings) withRedirects(c *http.Client) *http.Client {
	own := *c
	theirs := c.CheckRedirect
	own.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := s.checkRedirect(req, via); err != nil {
			return err
		}
		if theirs != nil {
			return theirs(req, via)
		}
		return nil
	}
	return &own
}

// checkRedirect refuses a redirect from https to anything else, and to
// an address the settings would not download from.
func (s settings) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	from := via[len(via)-1].URL
	if from.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("refused the redirect from %s to %s: from https to plain http", from.Redacted(), req.URL.Redacted())
	}
	if err := s.allowed(req.URL); err != nil {
		return fmt.Errorf("refused the redirect from %s: %w", from.Redacted(), err)
	}
	return nil
}

// allowed: u is https, or plain http from a loopback address (or with
// $CRDLAB_INSECURE_DOWNLOAD=1).
func (s settings) allowed(u *url.URL) error {
	switch {
	case u.Host == "":
		return fmt.Errorf("%s has no host", u.Redacted())
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && (loopback(u) || s.insecure):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%s is plain http from a host that is not this machine: use https, or set %s=1 for a mirror you trust the network to", u.Redacted(), InsecureEnv)
	}
	return fmt.Errorf("%s: the scheme is not https", u.Redacted())
}

// loopback: u's host is localhost or a loopback address.
func loopback(u *url.URL) bool {
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// insecure reads $CRDLAB_INSECURE_DOWNLOAD.
func insecure() bool { return os.Getenv(InsecureEnv) == "1" }

// idleBody fails a read, and ends the request, when the body sent nothing
// for idle.
type idleBody struct {
	ctx    context.Context
	body   io.ReadCloser
	timer  *time.Timer
	idle   time.Duration
	cancel context.CancelCauseFunc
}

// watchIdle makes resp's body an idleBody under the request's context
// ctx, which cancel ends.
func watchIdle(ctx context.Context, cancel context.CancelCauseFunc, body io.ReadCloser, idle time.Duration) io.ReadCloser {
	return &idleBody{ctx: ctx, body: body, idle: idle, cancel: cancel,
		timer: time.AfterFunc(idle, func() { cancel(fmt.Errorf("%w (%s)", errStalled, idle)) })}
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	if err != nil && !errors.Is(err, io.EOF) && b.ctx.Err() != nil {
		err = context.Cause(b.ctx) // the stall or the caller's context, not "context canceled"
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	err := b.body.Close()
	b.cancel(nil)
	return err
}
