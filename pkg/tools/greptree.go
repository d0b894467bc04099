package tools

import (
	"context"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"
)

// grepAhead bounds how many files the workers may search ahead of the
// file whose output comes next.
const grepAhead = 256

// grepJob is one file to search; done is closed once res is set.
type grepJob struct {
	abs, shown string
	res        fileResult
	done       chan struct{}
}

// tree searches the files below root on all cores: one goroutine walks
// (reading folders ahead on others), workers search the files it finds,
// and this goroutine takes their results in walk order, so the output is
// the one a sequential search prints. When enough is printed the walk and
// the workers are stopped.
func (s *searcher) tree(ctx context.Context, root string, g *pathGlob) error {
	jobs := make(chan *grepJob, grepAhead)
	order := make(chan *grepJob, grepAhead)
	var stop atomic.Bool // the output is complete
	var wg sync.WaitGroup
	var walkErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		defer close(order)
		walkErr = walkTree(ctx, root, func(e *walkEntry) error {
			if stop.Load() {
				return fs.SkipAll
			}
			if e.isDir() || !e.typ.IsRegular() || g != nil && !g.Match(e) {
				return nil
			}
			j := &grepJob{abs: e.abs(root), shown: e.rel, done: make(chan struct{})}
			order <- j // collect drains order once it stops
			jobs <- j  // the workers never stop taking jobs, so this waits only briefly
			return nil
		})
	}()
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newGrepWorker(s.spec)
			for j := range jobs {
				if !stop.Load() && ctx.Err() == nil {
					j.res = w.file(ctx, j.abs, j.shown)
				}
				close(j.done)
			}
		}()
	}
	err := s.collect(order)
	stop.Store(true)
	for range order {
	}
	wg.Wait()
	if err == nil {
		err = walkErr
	}
	return err
}

// collect takes the results in walk order until the walk ends or the
// search is over.
func (s *searcher) collect(order <-chan *grepJob) error {
	for j := range order {
		<-j.done // a worker closes it soon: at once for a job left after a cancel
		if err := s.add(&j.res); err != nil {
			return err
		}
	}
	return nil
}
