package conditions

import "testing"

func TestNamed(t *testing.T) {
	for _, tc := range []struct {
		items []string
		limit int
		want  string
	}{
		{nil, 3, ""},
		{[]string{"a"}, 3, "a"},
		{[]string{"a", "b", "c"}, 3, "a, b, c"},
		{[]string{"a", "b", "c", "d", "e"}, 3, "a, b, c and 2 more"},
		{[]string{"a", "b"}, 0, " and 2 more"},
	} {
		if got := Named(tc.items, tc.limit); got != tc.want {
			t.Errorf("Named(%v, %d) = %q, want %q", tc.items, tc.limit, got, tc.want)
		}
	}
}
