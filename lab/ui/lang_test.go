package ui

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
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
