package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Event is one change notification: its topic and a JSON value.
type Event struct {
	Topic string
	Data  any
}

// hub hands events to subscribers. The watcher (start) runs while at
// least one subscriber listens.
type hub struct {
	mu     sync.Mutex
	subs   map[chan Event]map[string]bool
	start  func(stop <-chan struct{})
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

func newHub(start func(stop <-chan struct{})) *hub {
	return &hub{subs: map[chan Event]map[string]bool{}, start: start}
}

// publish sends data under topic to every subscriber of the topic. A
// subscriber that is not keeping up loses the event (the page fetches
// the whole page again on the next one: nothing is lost for good).
func (s *Server) publish(topic string, data any) {
	if topic == "runs" {
		s.runs.invalidate()
	}
	s.hub.publish(Event{Topic: topic, Data: data})
}

// subscribe returns a channel of the events of topics and the function
// that ends the subscription.
func (s *Server) subscribe(topics ...string) (<-chan Event, func()) {
	return s.hub.subscribe(topics)
}

func (h *hub) publish(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch, topics := range h.subs {
		if !topics[e.Topic] {
			continue
		}
		select {
		case ch <- e:
		default:
		}
	}
}

func (h *hub) subscribe(topics []string) (<-chan Event, func()) {
	ch := make(chan Event, 64)
	set := map[string]bool{}
	for _, t := range topics {
		set[t] = true
	}
	h.mu.Lock()
	h.subs[ch] = set
	if len(h.subs) == 1 && !h.closed && h.start != nil {
		h.stop, h.done = make(chan struct{}), make(chan struct{})
		stop, done := h.stop, h.done
		go func() {
			defer close(done)
			h.start(stop)
		}()
	}
	h.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			delete(h.subs, ch)
			var done chan struct{}
			if len(h.subs) == 0 && h.stop != nil {
				close(h.stop)
				h.stop, done = nil, h.done
			}
			h.mu.Unlock()
			if done != nil {
				<-done
			}
		})
	}
}

// close stops the watcher and refuses to start it again.
func (h *hub) close() {
	h.mu.Lock()
	h.closed = true
	var done chan struct{}
	if h.stop != nil {
		close(h.stop)
		h.stop, done = nil, h.done
	}
	h.mu.Unlock()
	if done != nil {
		<-done
	}
}

// events streams the topics of ?topic= (repeatable, or comma-separated)
// as server-sent events until the client goes or the server closes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	var topics []string
	for _, t := range r.URL.Query()["topic"] {
		topics = append(topics, splitComma(t)...)
	}
	if len(topics) == 0 {
		http.Error(w, "ui: events: name the topics: ?topic=runs,world,serve", http.StatusBadRequest)
		return
	}
	// Subscribed before the stream opens: a page that fetches itself
	// again when it opens (ui.js) misses no change made after.
	ch, cancel := s.subscribe(topics...)
	defer cancel()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	// a comment at once, so that the client knows the stream is open
	fmt.Fprint(w, ": open\n\n")
	if rc.Flush() != nil {
		return
	}
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case <-keep.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		case e := <-ch:
			b, err := json.Marshal(e.Data)
			if err != nil {
				b = []byte("null")
			}
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Topic, b)
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// splitComma splits a comma-separated list, dropping empty items.
func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
