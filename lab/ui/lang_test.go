package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
)

var (
	// t("...") in app.js.
	tCall = regexp.MustCompile(`\bt\(("(?:[^"\\]|\\.)*")`)
	// const WORDS = [...] in app.js.
	wordsList = regexp.MustCompile(`(?s)const WORDS = \[(.*?)\];`)
	jsString  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	// data-t="..." and data-t-title="..." in index.html.
	dataT = regexp.MustCompile(`data-t(?:-title)?="([^"]*)"`)
	// An element's text in index.html, and its opening tag.
	htmlText = regexp.MustCompile(`<([a-z0-9]+)([^>]*)>([^<]*[A-Za-z][^<]*)<`)
	// A title attribute of index.html.
	htmlTitle = regexp.MustCompile(`<[a-z0-9]+[^>]*\btitle="[^"]*"[^>]*>`)
	// English words an element of app.js gets without t().
	untranslated = regexp.MustCompile(`(?:textContent = |el\("[a-z0-9]+", \{[^}]*\}, )["` + "`" + `][A-Za-z]`)
)

// uiMessages returns every message the page translates: t("...") and WORDS
// of app.js, data-t and data-t-title of index.html.
func uiMessages(t *testing.T) []string {
	t.Helper()
	js, err := static.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	html, err := static.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	unquote := func(q string) string {
		s, err := strconv.Unquote(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	for _, m := range tCall.FindAllStringSubmatch(string(js), -1) {
		out = append(out, unquote(m[1]))
	}
	words := wordsList.FindStringSubmatch(string(js))
	if words == nil {
		t.Fatal("app.js has no const WORDS = [...]")
	}
	for _, q := range jsString.FindAllString(words[1], -1) {
		out = append(out, unquote(q))
	}
	for _, m := range dataT.FindAllStringSubmatch(string(html), -1) {
		out = append(out, m[1])
	}
	if len(out) < 50 {
		t.Fatalf("only %d messages found in the page: the patterns no longer match app.js and index.html", len(out))
	}
	return out
}

// Every word of the web UI has its Chinese version: each message app.js
// and index.html translate is in lab/lang's catalog, and no English text
// of theirs bypasses the translation.
func TestEveryUIStringHasChinese(t *testing.T) {
	for _, msg := range uiMessages(t) {
		if !lang.ZH.UITranslated(msg) {
			t.Errorf("the web UI's %q has no Chinese version in lab/lang (ui.go)", msg)
		}
	}
	html, _ := static.ReadFile("static/index.html")
	for _, m := range htmlText.FindAllStringSubmatch(string(html), -1) {
		text := strings.TrimSpace(m[3])
		switch {
		case m[1] == "title" || m[1] == "strong" && text == "crdlab" || m[1] == "option" && text == "English":
		case !strings.Contains(m[2], "data-t="):
			t.Errorf("index.html: <%s%s>%s has no data-t: it would stay English", m[1], m[2], text)
		}
	}
	for _, tag := range htmlTitle.FindAllString(string(html), -1) {
		if !strings.Contains(tag, "data-t-title=") {
			t.Errorf("index.html: %s has a title and no data-t-title", tag)
		}
	}
	js, _ := static.ReadFile("static/app.js")
	for i, line := range strings.Split(string(js), "\n") {
		if untranslated.MatchString(line) {
			t.Errorf("app.js:%d: English text shown without t(): %s", i+1, strings.TrimSpace(line))
		}
	}
}

// lang.js gives the page the catalog and the lab's language.
func TestLangJS(t *testing.T) {
	s, ts := newServer(t)
	s.Lang = lang.ZH
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/lang.js", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	js, ok := strings.CutPrefix(string(body), "\"use strict\";\nconst LANG = ")
	if resp.StatusCode != http.StatusOK || !ok {
		t.Fatalf("%d:\n%s", resp.StatusCode, body)
	}
	var got struct {
		Default  string                       `json:"default"`
		Messages map[string]map[string]string `json:"messages"`
		Actors   map[string]map[string]string `json:"actors"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(js), ";")), &got); err != nil {
		t.Fatalf("%v:\n%s", err, body)
	}
	if got.Default != "zh" || got.Messages["zh"]["Running"] != "运行中" || got.Actors["zh"]["replicaset"] != "replicaset（副本集控制器）" {
		t.Errorf("lang.js: default %q, zh Running %q, replicaset %q", got.Default, got.Messages["zh"]["Running"], got.Actors["zh"]["replicaset"])
	}
}

// A detail shown as it is: e.detail || "", ${e.detail}, "  " + e.detail : "".
var shownDetail = regexp.MustCompile(`\.detail\s*(?:\|\||[:)}\],;` + "`" + `])`)

// The page says a timeline line's detail, and a change's on an object's
// page, in its language with the terminal's words: the lab sends each
// detail worded in every language (timeline.DetailIn, from lab/lang's
// catalog), in the snapshot, the stream and the object's page, and app.js
// shows a detail only through detailText, which picks the page's.
func TestDetailsInThePagesLanguage(t *testing.T) {
	js, _ := static.ReadFile("static/app.js")
	for i, line := range strings.Split(string(js), "\n") {
		if shownDetail.MatchString(line) && !strings.Contains(line, "function detailText(") {
			t.Errorf("app.js:%d: a detail shown as recorded, in English, not through detailText: %s", i+1, strings.TrimSpace(line))
		}
	}

	s, ts := newServer(t)
	running := timeline.Event{Actor: "kubelet (simulated)", Verb: timeline.Status, Kind: "Pod", Name: "web-1-a", Detail: "Running, Ready"}
	deleting := timeline.Event{Actor: "you (kubectl)", Verb: timeline.Delete, Kind: "Pod", Name: "web-1-a", Detail: "deletion requested (graceful)"}
	v1 := pod("u1", "web-1-a", "1", map[string]any{"phase": "Pending"})
	s.Observe(timeline.Change{Resource: podsGVR, Kind: "Pod", New: v1, Initial: true})
	running.Time = time.Now()
	s.Observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: v1, New: pod("u1", "web-1-a", "2", map[string]any{"phase": "Running"}), Event: &running})
	s.Record(running)
	want := func(what string, got map[lang.Lang]string, e timeline.Event) {
		t.Helper()
		if zh := timeline.DetailIn(lang.ZH, e); got[lang.ZH] != zh || zh == e.Detail {
			t.Errorf("%s: details %q, want zh %q (the terminal's)", what, got, zh)
		}
	}

	get := func(path string, v any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d, %v", path, resp.StatusCode, err)
		}
	}
	var snap message
	get("/api/state", &snap)
	if len(snap.Events) != 1 {
		t.Fatalf("snapshot: %d lines, want 1", len(snap.Events))
	}
	want("the snapshot's line", snap.Events[0].Details, running)
	var page Page
	get("/api/object?uid=u1", &page)
	if len(page.History) != 2 {
		t.Fatalf("page: %d changes, want 2", len(page.History))
	}
	want("the object page's change", page.History[0].Details, running)

	// A line of the stream, after its snapshot.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/stream", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var msgs []message
	for len(msgs) < 2 && sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m message
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
		if m.Type == "snapshot" {
			s.Record(deleting)
		}
	}
	if len(msgs) != 2 || msgs[1].Type != "event" || msgs[1].Event == nil {
		t.Fatalf("stream: %+v, want the snapshot and a line", msgs)
	}
	want("the stream's line", msgs[1].Event.Details, deleting)
}
