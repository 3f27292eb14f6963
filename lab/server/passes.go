package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

// takePasses serves control.RoutePasses: each reconcile pass of a
// controller outside the lab's process (a suite's own operator) goes into
// the lab's own events, as one of its sample operators' passes does,
// within the limits of passlimits.go: a request of more than
// maxPassesBody, or a pass whose names are too long, ends the request
// with an error (the passes before it are taken).
func takePasses(record func(timeline.Event)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxPassesBody))
		for i := 0; ; i++ {
			var p control.Pass
			if err := dec.Decode(&p); err != nil {
				var tooLarge *http.MaxBytesError
				switch {
				case errors.As(err, &tooLarge):
					writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("reconcile passes: more than %d bytes in one request", tooLarge.Limit))
				case !errors.Is(err, io.EOF):
					writeError(w, http.StatusBadRequest, fmt.Errorf("unable to read a reconcile pass: %w", err))
				}
				return
			}
			p, err := cleanPass(i, p, time.Now())
			if err != nil {
				writeError(w, http.StatusBadRequest, err)
				return
			}
			record(passEvent(p))
		}
	}
}

// passEvent is the timeline line of a reconcile pass, worded as the sample
// operators' (controllers' tracer): what the pass wrote, how it ended,
// what woke it and how long it took, ordered by its end.
func passEvent(p control.Pass) timeline.Event {
	var detail []string
	if len(p.Writes) == 0 {
		detail = append(detail, "no change")
	} else {
		writes := make([]string, len(p.Writes))
		for i, w := range p.Writes {
			writes[i] = w.Verb + " " + w.Object()
			if w.Error != "" {
				writes[i] += " (refused: " + w.Error + ")"
			}
		}
		detail = append(detail, strings.Join(writes, ", "))
	}
	switch {
	case p.Error != "" && p.Terminal:
		detail = append(detail, "error: "+p.Error+" (terminal: not retried)")
	case p.Error != "":
		detail = append(detail, "error: "+p.Error+" (retried with back-off)")
	case p.RequeueAfter > 0:
		detail = append(detail, "requeue after "+p.RequeueAfter.String())
	case p.Requeue:
		detail = append(detail, "requeue (with back-off)")
	}
	if len(p.Triggers) == 0 {
		detail = append(detail, "woken by a requeue or a related object")
	} else {
		woke := make([]string, len(p.Triggers))
		for i, t := range p.Triggers {
			woke[i] = t.Change // "…": more than shown
			if t.Name != "" {
				woke[i] = t.Object() + " " + t.Change
			}
		}
		detail = append(detail, "woken by "+strings.Join(woke, ", "))
	}
	detail = append(detail, "in "+p.Duration.String())
	return timeline.Event{
		Time: p.Start.Add(p.Duration), Actor: p.Controller, Verb: timeline.Reconcile, Kind: p.Kind,
		Namespace: p.Namespace, Name: p.Name, Detail: strings.Join(detail, "; "),
	}
}
