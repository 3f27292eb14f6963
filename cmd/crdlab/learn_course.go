package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/ui"
	"github.com/crdlab/crdlab/scenarios"
)

// courseMap returns the course: the built-in lessons in order, each with
// its place on the map, its title in each of langs and the learner's
// progress, read now from the state dir; an error in the first of langs.
// 'crdlab learn' prints it; the web UI shows it (its course map), in every
// language.
func courseMap(sd control.Dir, langs ...lang.Lang) ([]ui.Lesson, error) {
	all, err := scenarios.Lessons()
	if err != nil {
		return nil, err
	}
	say := lang.EN
	if len(langs) > 0 {
		say = langs[0]
	}
	out := make([]ui.Lesson, 0, len(all))
	minor := labMinor(sd)
	for _, s := range all {
		p, err := loadProgress(sd, s.Metadata.Name, say)
		if err != nil {
			return nil, err
		}
		titles := map[lang.Lang]string{}
		for _, l := range langs {
			titles[l] = s.In(l).Spec.Title
		}
		sp := s.Spec
		out = append(out, ui.Lesson{Name: s.Metadata.Name, Order: sp.Order, Title: titles, After: sp.After,
			Minutes: sp.Minutes, Seed: sp.Seed, Tasks: tasks(s, minor), Done: p.count(s)})
	}
	return out, nil
}

// listLessons prints the course map: a line per lesson (its name, title
// and the tasks done of its tasks), and under its title its place in the
// course, its time, the lessons to do first and the seed's section it
// teaches.
func listLessons(out io.Writer, sd control.Dir, l lang.Lang) error {
	course, err := courseMap(sd, l)
	if err != nil {
		return err
	}
	rows := [][]string{strings.Split(l.Msg("NAME\tTITLE\tTASKS DONE"), "\t")}
	for _, c := range course {
		rows = append(rows, []string{c.Name, c.Title[l], fmt.Sprintf("%d/%d", c.Done, c.Tasks)})
	}
	lines := columnLines(rows)
	names := 0
	for _, r := range rows {
		names = max(names, scenarios.Columns(r[0]))
	}
	indent := strings.Repeat(" ", names+3) // under the title
	fmt.Fprintln(out, lines[0])
	for i, c := range course {
		fmt.Fprintln(out, lines[i+1])
		if place := coursePlace(l, c); place != "" {
			fmt.Fprintln(out, indent+place)
		}
	}
	return nil
}

// coursePlace says a lesson's place on the course map, in l: lesson 2 ·
// about 15 min · after crd-basics · the seed: “…”.
func coursePlace(l lang.Lang, c ui.Lesson) string {
	var parts []string
	if c.Order > 0 {
		parts = append(parts, l.Msgf("lesson %d", c.Order))
	}
	if c.Minutes > 0 {
		parts = append(parts, l.Msgf("about %d min", c.Minutes))
	}
	if len(c.After) > 0 {
		parts = append(parts, l.Msgf("after %s", strings.Join(c.After, ", ")))
	}
	if c.Seed != "" {
		parts = append(parts, l.Msgf("the seed: “%s”", c.Seed))
	}
	return strings.Join(parts, " · ")
}
