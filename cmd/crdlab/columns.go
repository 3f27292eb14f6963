package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/crdlab/crdlab/scenarios"
)

// printColumns prints rows as a table, each column padded to its widest
// cell as a terminal shows it, where a Chinese character takes two columns
// (text/tabwriter counts one), three spaces between columns.
func printColumns(out io.Writer, rows [][]string) {
	for _, line := range columnLines(rows) {
		fmt.Fprintln(out, line)
	}
}

// columnLines returns the lines of printColumns' table.
func columnLines(rows [][]string) []string {
	var width []int
	for _, r := range rows {
		for i, cell := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], scenarios.Columns(cell))
		}
	}
	lines := make([]string, 0, len(rows))
	for _, r := range rows {
		var line strings.Builder
		for i, cell := range r {
			line.WriteString(cell)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", width[i]-scenarios.Columns(cell)+3))
			}
		}
		lines = append(lines, line.String())
	}
	return lines
}
