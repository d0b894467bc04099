package session

import (
	"errors"
	"strings"
	"testing"
)

func ent(id, parent string) Entry {
	return Entry{Type: TypeCustom, ID: id, ParentID: Ref(parent), CustomType: "t"}
}

func ids(es []Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.ID)
	}
	return strings.Join(s, ",")
}

func TestPathTo(t *testing.T) {
	t.Parallel()
	base := []Entry{ent("aaaa0001", ""), ent("aaaa0002", "aaaa0001"), ent("aaaa0003", "aaaa0002"), ent("bbbb0004", "aaaa0002")}
	tests := []struct {
		name     string
		entries  []Entry
		leaf     string
		want     string
		wantErr  error
		errHas   []string
		warnKind string
	}{
		{"linear", base, "aaaa0003", "aaaa0001,aaaa0002,aaaa0003", nil, nil, ""},
		{"branch", base, "bbbb0004", "aaaa0001,aaaa0002,bbbb0004", nil, nil, ""},
		{"unique prefix", base, "bbbb", "aaaa0001,aaaa0002,bbbb0004", nil, nil, ""},
		{"ambiguous prefix", base, "aaaa", "", ErrAmbiguous, []string{"aaaa0001", "aaaa0003"}, ""},
		{"unknown leaf lists leaves newest first", base, "cccc", "", ErrUnknownLeaf, []string{"bbbb0004, aaaa0003"}, ""},
		{"empty leaf", base, "", "", ErrUnknownLeaf, nil, ""},
		{"missing parent stops at the gap", append(base[:2:2], ent("aaaa0005", "lost0000")), "aaaa0005", "aaaa0005", nil, nil, WarnGap},
		{"cycle", []Entry{ent("aaaa0001", "aaaa0002"), ent("aaaa0002", "aaaa0001")}, "aaaa0001", "", ErrCycle, []string{"aaaa0001"}, ""},
		{"self parent", []Entry{ent("aaaa0001", "aaaa0001")}, "aaaa0001", "", ErrCycle, nil, ""},
		{"duplicate id on path", append(base[:3:3], ent("aaaa0002", "aaaa0001")), "aaaa0003", "aaaa0001,aaaa0002,aaaa0003", nil, nil, WarnDuplicateID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path, warns, err := PathTo(tt.entries, tt.leaf)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				for _, s := range tt.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(path); got != tt.want {
				t.Errorf("path %s, want %s", got, tt.want)
			}
			if tt.warnKind == "" && len(warns) > 0 || tt.warnKind != "" && (len(warns) != 1 || warns[0].Kind != tt.warnKind) {
				t.Errorf("warnings %v, want %q", warns, tt.warnKind)
			}
		})
	}
}

func TestTreeHelpers(t *testing.T) {
	t.Parallel()
	l1, l2, empty, n1, n2 := "one", "two", "", "first", "  second "
	es := []Entry{
		ent("aaaa0001", ""), ent("aaaa0002", "aaaa0001"), ent("aaaa0003", "aaaa0001"),
		{Type: TypeLabel, ID: "aaaa0004", ParentID: Ref("aaaa0003"), TargetID: "aaaa0001", Label: &l1},
		{Type: TypeLabel, ID: "aaaa0005", ParentID: Ref("aaaa0004"), TargetID: "aaaa0002", Label: &l2},
		{Type: TypeLabel, ID: "aaaa0006", ParentID: Ref("aaaa0005"), TargetID: "aaaa0001", Label: &empty},
		{Type: TypeSessionInfo, ID: "aaaa0007", ParentID: Ref("aaaa0006"), Name: &n1},
		{Type: TypeSessionInfo, ID: "aaaa0008", ParentID: Ref("aaaa0007"), Name: &n2},
	}
	if got := ids(Leaves(es)); got != "aaaa0008,aaaa0002" {
		t.Errorf("Leaves %s", got)
	}
	if got := ids(Children(es, "aaaa0001")); got != "aaaa0002,aaaa0003" {
		t.Errorf("Children %s", got)
	}
	if got := ids(Children(es, "")); got != "aaaa0001" {
		t.Errorf("roots %s", got)
	}
	if n, _ := Newest(es); n.ID != "aaaa0008" {
		t.Errorf("Newest %s", n.ID)
	}
	if got := Labels(es); len(got) != 1 || got["aaaa0002"] != "two" {
		t.Errorf("Labels %v", got)
	}
	if got := SessionName(es); got != "second" {
		t.Errorf("SessionName %q", got)
	}
	if id, err := ResolveID(es, "aaaa0003"); err != nil || id != "aaaa0003" {
		t.Errorf("ResolveID %s %v", id, err)
	}
}
