package web_test

import (
	"fmt"
	"strings"
)

// table reads a table as people see it: its column headers, and its rows, each a map from
// column header to what the row's cell (or row header) says. It fails when the page redraws
// the table meanwhile; callers look again.
func (e *element) table() (headers []string, rows []map[string]string, err error) {
	tb := e.tab
	columns, err := tb.queryAX(e.id, "columnheader", "")
	if err != nil {
		return nil, nil, err
	}
	for _, h := range columns {
		headers = append(headers, h.name)
	}
	all, err := tb.queryAX(e.id, "row", "")
	if err != nil {
		return nil, nil, err
	}
	for _, r := range all {
		rowHeaders, err := tb.queryAX(r.id, "rowheader", "")
		if err != nil {
			return nil, nil, err
		}
		cells, err := tb.queryAX(r.id, "cell", "")
		if err != nil {
			return nil, nil, err
		}
		cells = append(rowHeaders, cells...)
		if len(cells) == 0 {
			continue // the header row
		}
		row := map[string]string{}
		for i, c := range cells {
			text, err := c.call(`function() { return this.innerText ?? ""; }`)
			if err != nil {
				return nil, nil, err
			}
			if i < len(headers) {
				row[headers[i]] = strings.Join(strings.Fields(text), " ")
			}
		}
		rows = append(rows, row)
	}
	return headers, rows, nil
}

// row waits until the table named tableName has a row whose first column says key and whose
// column says want (contains it), and returns that row. The table is found again at every look,
// since a page may draw it anew.
func (tb *tab) row(tableName, key, column, want string) map[string]string {
	tb.t.Helper()
	var found map[string]string
	tb.waitFor(fmt.Sprintf("table %q to have a row %q whose %q says %q", tableName, key, column, want), func() bool {
		tables, err := tb.queryAX(0, "table", tableName)
		if err != nil || len(tables) != 1 {
			return false
		}
		headers, rows, err := tables[0].table()
		if err != nil {
			return false
		}
		for _, r := range rows {
			if len(headers) > 0 && r[headers[0]] == key && strings.Contains(r[column], want) {
				found = r
				return true
			}
		}
		return false
	})
	return found
}
