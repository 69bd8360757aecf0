package main

import "sync"

// queue holds one backend's jobs. It is fair between hosts: the worker
// takes one job of each host in turn, so a host whose publisher floods
// the broker with waits delays another host's notification by one
// delivery of its own, not by a queue full of them; and it is bounded per
// host, so the flood's jobs are the ones left out.
type queue struct {
	mu     sync.Mutex
	more   chan struct{} // a job or the end came
	byHost map[string][]job
	turn   []string // hosts with jobs, in the order they are served
	n      int
	closed bool
}

// hostJobs is how many jobs one host may have waiting for one backend.
const hostJobs = 32

func newQueue() *queue {
	return &queue{more: make(chan struct{}, 1), byHost: map[string][]job{}}
}

// push adds j behind its host's jobs; false when the host has hostJobs
// waiting already (the job is dropped).
func (q *queue) push(j job) bool {
	host := j.note.Host
	q.mu.Lock()
	defer q.mu.Unlock()
	js := q.byHost[host]
	if len(js) >= hostJobs {
		return false
	}
	if len(js) == 0 {
		q.turn = append(q.turn, host)
	}
	q.byHost[host] = append(js, j)
	q.n++
	q.signal()
	return true
}

func (q *queue) signal() {
	select {
	case q.more <- struct{}{}:
	default:
	}
}

// pop waits for the next job: the first of the host whose turn it is.
// ok is false once the queue is closed and empty.
func (q *queue) pop() (j job, ok bool) {
	for {
		q.mu.Lock()
		if q.n > 0 {
			host := q.turn[0]
			js := q.byHost[host]
			j, js = js[0], js[1:]
			q.turn = q.turn[1:]
			if len(js) > 0 {
				q.byHost[host] = js
				q.turn = append(q.turn, host) // its next job after the others'
			} else {
				delete(q.byHost, host)
			}
			q.n--
			q.mu.Unlock()
			return j, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return job{}, false
		}
		<-q.more
	}
}

// empty reports whether no job waits.
func (q *queue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n == 0
}

// close lets pop end once the jobs waiting are done.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}
