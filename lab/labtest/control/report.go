package control

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
)

// Report opens a stream of report entries to the lab (a scenario run's,
// for the web UI of 'crdlab up'): report sends one, JSON-encoded, without
// waiting; end ends the stream once what was sent has reached the lab, or
// after a second. A lab that cannot be reached, or is too slow, loses
// entries rather than slowing the run down.
func (c *Client) Report(ctx context.Context) (report func(any), end func()) {
	pr, pw := io.Pipe()
	queue := make(chan []byte, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := c.send(ctx, RouteReports, "", pr)
		if err == nil {
			resp.Body.Close()
		}
		pr.CloseWithError(errors.New("the lab closed the stream"))
	}()
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		defer pw.Close()
		for b := range queue {
			if _, err := pw.Write(b); err != nil {
				for range queue { // drain: the lab is gone
				}
				return
			}
		}
	}()
	var once sync.Once
	var mu sync.Mutex
	closed := false
	report = func(entry any) {
		b, err := json.Marshal(entry)
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		select {
		case queue <- append(b, '\n'):
		default: // the lab does not keep up: lose this one
		}
	}
	return report, func() {
		once.Do(func() {
			mu.Lock()
			closed = true
			close(queue)
			mu.Unlock()
			select {
			case <-sent:
			case <-time.After(time.Second):
			}
			pw.Close()
			select {
			case <-done:
			case <-time.After(time.Second):
			}
		})
	}
}
