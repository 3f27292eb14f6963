package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
)

// request sends a request to the UI with its token and returns the answer's
// status and body.
func request(t *testing.T, s *Server, method, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	req.Header.Set("Authorization", "Bearer "+s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// The course map comes from the lab's Course, with the progress it reads
// at each ask; a lab without a course says so.
func TestCourseMap(t *testing.T) {
	s, ts := newServer(t)
	if code, body := request(t, s, http.MethodGet, ts.URL+"/api/course"); code != http.StatusNotFound || !strings.Contains(body, "this lab serves no course") {
		t.Errorf("no course: %d %q", code, body)
	}
	done := 0
	s.Course = func() ([]Lesson, error) {
		done++
		return []Lesson{{Name: "crd-basics", Order: 1, Title: map[lang.Lang]string{lang.EN: "Your first CRD", lang.ZH: "你的第一个 CRD"},
			Minutes: 15, Seed: "CRD / CRD names", Tasks: 3, Done: done}}, nil
	}
	for want := 1; want <= 2; want++ {
		code, body := request(t, s, http.MethodGet, ts.URL+"/api/course")
		var got []Lesson
		if err := json.Unmarshal([]byte(body), &got); code != http.StatusOK || err != nil || len(got) != 1 {
			t.Fatalf("%d %q: %v", code, body, err)
		}
		if c := got[0]; c.Name != "crd-basics" || c.Title[lang.ZH] != "你的第一个 CRD" || c.Seed != "CRD / CRD names" || c.Tasks != 3 || c.Done != want {
			t.Errorf("ask %d: %+v, want %d done", want, c, want)
		}
	}
	s.Course = func() ([]Lesson, error) { return nil, errors.New("lessons/x.yaml: spec.after: a cycle") }
	if code, body := request(t, s, http.MethodGet, ts.URL+"/api/course"); code != http.StatusInternalServerError || !strings.Contains(body, "lessons/x.yaml: spec.after") {
		t.Errorf("a course that does not load: %d %q", code, body)
	}
}

// The hint button's request asks the lesson through the lab's Hint, in
// the page's language (the lab's if the page names none), and gives its
// answer; with no lesson running it says so, as noLesson.
func TestHintButtonAsksTheLesson(t *testing.T) {
	s, ts := newServer(t)
	query := ""
	answer := func() hintAnswer {
		t.Helper()
		code, body := request(t, s, http.MethodPost, ts.URL+"/api/hint"+query)
		var a hintAnswer
		if err := json.Unmarshal([]byte(body), &a); err != nil {
			t.Fatalf("%d %q: %v", code, body, err)
		}
		if (a.Error == "") != (code == http.StatusOK) {
			t.Errorf("status %d with %+v", code, a)
		}
		return a
	}
	if a := answer(); !a.NoLesson {
		t.Errorf("a lab that asks no lesson: %+v", a)
	}
	asked := 0
	s.Hint = func(ctx context.Context, l lang.Lang) (string, error) {
		if _, ok := ctx.Deadline(); !ok {
			return "", errors.New("the ask has no deadline")
		}
		asked++
		return fmt.Sprintf("hint %d (%s): kubectl get apiservice -o yaml", asked, l), nil
	}
	if a := answer(); a.Text != "hint 1 (en): kubectl get apiservice -o yaml" || asked != 1 {
		t.Errorf("the lesson's hint: %+v", a)
	}
	s.Lang = lang.ZH
	if a := answer(); a.Text != "hint 2 (zh): kubectl get apiservice -o yaml" {
		t.Errorf("the lesson's hint, the page naming no language in a Chinese lab: %+v", a)
	}
	query = "?lang=en"
	if a := answer(); a.Text != "hint 3 (en): kubectl get apiservice -o yaml" {
		t.Errorf("the lesson's hint, the page in English in a Chinese lab: %+v", a)
	}
	s.Lang, query = lang.EN, "?lang=zh"
	if a := answer(); a.Text != "hint 4 (zh): kubectl get apiservice -o yaml" {
		t.Errorf("the lesson's hint, the page in Chinese: %+v", a)
	}
	s.Hint = func(context.Context, lang.Lang) (string, error) {
		return "", fmt.Errorf("%w on /tmp/x: start one with 'crdlab learn LESSON'", ErrNoLesson)
	}
	if a := answer(); !a.NoLesson || !strings.Contains(a.Error, "crdlab learn LESSON") {
		t.Errorf("no lesson running: %+v", a)
	}
	s.Hint = func(context.Context, lang.Lang) (string, error) { asked++; return "a hint", nil }
	asked = 1
	if code, _ := request(t, s, http.MethodGet, ts.URL+"/api/hint"); code == http.StatusOK || asked != 1 {
		t.Errorf("GET /api/hint: %d, asked the lesson %d times: a hint is asked with POST", code, asked-1)
	}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/hint", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || asked != 1 {
		t.Errorf("a hint asked without the token: %d, asked %d", resp.StatusCode, asked)
	}
}
