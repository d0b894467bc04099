package extension

import "gopi/pkg/tools"

// Secrets passes on the secrets of the wrapped executor, so that the loop
// scrubs them from results that passed through the hooks (a reason, a
// replaced output) as from any other.
func (x *executor) Secrets() *tools.Secrets {
	if h, ok := x.next.(interface{ Secrets() *tools.Secrets }); ok {
		return h.Secrets()
	}
	return nil
}

// scrub takes the secrets out of what a command hook printed, before any
// of it is parsed, quoted in a reason or cut to a preview (which could
// leave half a key that no later scrub would find).
func (r *runResult) scrub(s *tools.Secrets) {
	r.stdout.scrub(s)
	r.stderr.scrub(s)
}

func (b *limitedBuffer) scrub(s *tools.Secrets) {
	if s.Len() == 0 {
		return
	}
	clean := s.Scrub(b.buf.String())
	b.buf.Reset()
	b.buf.WriteString(clean)
}
