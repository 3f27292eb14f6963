package ui

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/crdlab/crdlab/lab/lang"
)

// langJS serves the page's words in each language (lab/lang's catalog),
// the actors' Chinese glosses and the lab's language, as a script the page
// loads before app.js: const LANG = {default, messages: {zh: {...}},
// actors: {zh: {...}}}.
func (s *Server) langJS(w http.ResponseWriter, _ *http.Request) {
	def := s.Lang
	if def == "" {
		def = lang.EN
	}
	messages, actors := map[lang.Lang]map[string]string{}, map[lang.Lang]map[string]string{}
	for _, l := range lang.All {
		messages[l], actors[l] = lang.UIMessages(l), lang.Actors(l)
	}
	b, err := json.Marshal(map[string]any{"default": def, "messages": messages, "actors": actors})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	fmt.Fprintf(w, "\"use strict\";\nconst LANG = %s;\n", b)
}
