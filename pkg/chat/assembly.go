package chat

import (
	"fmt"
	"io"

	"gopi/pkg/assemble"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// AssemblyDeps are the chat's Deps over an Assembly: /leaf, /model,
// /thinking and /new are its Reopen, /tree draws its session, and expand
// (templates and skills; nil expands nothing) expands a prompt.
func AssemblyDeps(a *assemble.Assembly, expand func(text string) (string, error)) Deps {
	if expand == nil {
		expand = func(text string) (string, error) { return text, nil }
	}
	return Deps{
		Open: func(w Want) (Opened, error) {
			rt, err := a.Reopen(assemble.Want{Leaf: w.Leaf, ModelRef: w.Model, Thinking: w.Thinking, NewSession: w.NewSession})
			if err != nil {
				return Opened{}, err
			}
			return openedOf(a, rt), nil
		},
		Expand: expand,
		Tree: func(w io.Writer, store session.Store) error {
			return drawTree(w, store, a.File())
		},
	}
}

// openedOf is rt, which a built, as the chat takes it: with a's model,
// session file and thinking level.
func openedOf(a *assemble.Assembly, rt *runtime.Runtime) Opened {
	return Opened{Runtime: rt, Model: a.Model().Info, File: a.File(), Thinking: a.Thinking()}
}

// drawTree draws the store's entries as gopi session tree does; file is
// the session's file.
func drawTree(w io.Writer, store session.Store, file string) error {
	entries := store.Entries()
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, "(no entries yet)")
		return err
	}
	return session.DrawTree(w, store.Header().ID, file, session.TreeNodes(entries))
}
