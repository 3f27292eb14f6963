package ui

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/crdlab/crdlab/lab/lang"
)

// ErrNoLesson: no lesson runs on the lab's state dir, so none can give a
// hint ('crdlab learn LESSON' starts one).
var ErrNoLesson = errors.New("no lesson is running")

// hintWait bounds how long the page's ask for a hint waits for the
// lesson's answer.
const hintWait = 10 * time.Second

// Lesson is a lesson on the course map: its place in the course and the
// learner's progress in it.
type Lesson struct {
	Name string `json:"name"`
	// Order is its place in the course (1 first; 0: none given).
	Order int `json:"order,omitempty"`
	// Title is its title in each language.
	Title map[lang.Lang]string `json:"title"`
	// After names the lessons to do before it.
	After []string `json:"after,omitempty"`
	// Minutes is about how long it takes.
	Minutes int `json:"minutes,omitempty"`
	// Seed is the section of the seed text it teaches, in the seed's words.
	Seed string `json:"seed,omitempty"`
	// Tasks is how many tasks it has, Done how many the learner did.
	Tasks int `json:"tasks"`
	Done  int `json:"done"`
}

// course serves the course map, with the learner's progress now: GET
// /api/course.
func (s *Server) course(w http.ResponseWriter, _ *http.Request) {
	if s.Course == nil {
		http.Error(w, "this lab serves no course", http.StatusNotFound)
		return
	}
	lessons, err := s.Course()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, lessons)
}

// hintAnswer is the answer to POST /api/hint: the hint (or why there is
// none), or the error and whether it is that no lesson runs.
type hintAnswer struct {
	Text     string `json:"text,omitempty"`
	Error    string `json:"error,omitempty"`
	NoLesson bool   `json:"noLesson,omitempty"`
}

// hint asks the running lesson for its task's next hint, as 'crdlab learn
// hint' does: POST /api/hint?lang=L, L the page's language (the lab's if
// none). The lesson shows it too, and reports it to the page's task pane.
func (s *Server) hint(w http.ResponseWriter, r *http.Request) {
	if s.Hint == nil {
		writeJSONStatus(w, http.StatusServiceUnavailable, hintAnswer{Error: ErrNoLesson.Error(), NoLesson: true})
		return
	}
	l := s.Lang
	if asked, err := lang.Parse(r.URL.Query().Get("lang")); err == nil && r.URL.Query().Has("lang") {
		l = asked
	} else if l == "" {
		l = lang.EN
	}
	ctx, cancel := context.WithTimeout(r.Context(), hintWait)
	defer cancel()
	text, err := s.Hint(ctx, l)
	if err != nil {
		writeJSONStatus(w, http.StatusServiceUnavailable, hintAnswer{Error: err.Error(), NoLesson: errors.Is(err, ErrNoLesson)})
		return
	}
	writeJSON(w, hintAnswer{Text: text})
}
