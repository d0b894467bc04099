package tools

import (
	"sync"
	"time"

	"golang.org/x/sys/windows"
)

// Groups keeps the job objects of bash calls whose shell exited while
// other processes of its job still ran (`start server`, `Start-Process`),
// so that Kill can end them when gopi is done: a background process may
// serve the run's later calls, but no child of a bash call outlives gopi
// (a job also ends its processes when gopi's handle to it closes).
// The zero value is ready; a nil *Groups keeps nothing.
type Groups struct {
	mu   sync.Mutex
	jobs []keptJob
}

type keptJob struct {
	h   windows.Handle
	api jobAPI
}

// keepJob takes over job, which still has processes.
func (g *Groups) keepJob(job windows.Handle, api jobAPI) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.jobs = append(g.jobs, keptJob{job, api})
}

// Len is the number of jobs kept.
func (g *Groups) Len() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.jobs)
}

// Kill ends every job kept and waits up to wait, in all, for their
// processes to be gone. It returns how many jobs still had processes
// after the wait.
func (g *Groups) Kill(wait time.Duration) int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	jobs := g.jobs
	g.jobs = nil
	g.mu.Unlock()
	for _, j := range jobs {
		_ = j.api.terminate(j.h)
	}
	deadline := time.Now().Add(wait)
	left := 0
	for _, j := range jobs {
		alive := func() bool { n, err := j.api.active(j.h); return err == nil && n > 0 }
		for alive() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if alive() {
			left++
		}
		j.api.close(j.h)
	}
	return left
}
