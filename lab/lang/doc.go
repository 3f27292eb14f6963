// Package lang is the learner's language: which one crdlab speaks (the
// --lang flag, or the locale as kubectl reads it: LC_ALL, LC_MESSAGES,
// LANG) and crdlab's own words in it, for the CLI, the scenario runner,
// the timeline's details (lab/timeline: DetailIn) and the web UI.
//
// English is the language of the code: a message is looked up by its
// English text (a format string), and a message with no translation falls
// back to its English text, never to an empty string. Kubernetes' own words
// (verbs, kinds, field names, kubectl commands) are never translated.
//
// The package is standard library only, so that the scenario runner and
// the control protocol's users can link it.
package lang
