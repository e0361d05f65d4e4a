package run

import (
	"encoding/json"

	"github.com/proselang/prose/gate"
	"github.com/proselang/prose/journal"
)

// Answer checks val, a person's answer to the gate name of run id whose
// journal is under base (gate.CheckRecorded: the options or fields the
// gate asks for), and records it in the run's journal (journal.Answer):
// what prose answer and the page of prose ui do with an answer. A refusal
// is a *gate.AnswerError, a *journal.AnswerError or a *journal.NoRunError.
// A gate the journal does not list is left to journal.Answer, which says
// why.
func Answer(base, id, name string, val json.RawMessage, replace bool) (journal.GateState, error) {
	if gates, err := journal.Waiting(base, id); err == nil {
		shaped, err := gate.CheckRecorded(gates, id, name, val, replace)
		if err != nil {
			return journal.GateState{}, err
		}
		val = shaped
	}
	return journal.Answer(base, id, name, val, journal.Options{})
}
