package ui

import (
	"encoding/json"
	"strings"
	"testing"
)

// A gate form's number and JSON fields keep integers exactly, or refuse
// them; they are never rounded into a float on the way to the answer.
func TestFieldValueKeepsIntegers(t *testing.T) {
	answer := func(fld fieldView, s string) (string, error) {
		v, err := fieldValue(fld, s)
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(map[string]any{"v": v})
		return string(b), err
	}
	num := fieldView{Name: "n", Type: "integer", Input: "number"}
	for in, want := range map[string]string{
		"42":                `{"v":42}`,
		" 9007199254740993": `{"v":9007199254740993}`,
		"1.5":               `{"v":1.5}`,
	} {
		if got, err := answer(num, in); err != nil || got != want {
			t.Errorf("number %q: %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := answer(num, "12345678901234567890"); err == nil || !strings.Contains(err.Error(), "12345678901234567000") {
		t.Errorf("number beyond int64: %v; want it refused, naming what it would have become", err)
	}
	if _, err := answer(num, "ten"); err == nil || !strings.Contains(err.Error(), "is not a number") {
		t.Errorf("number ten: %v", err)
	}
	js := fieldView{Name: "j", Type: "object", Input: "json"}
	if got, err := answer(js, `{"id": 9007199254740993}`); err != nil || got != `{"v":{"id":9007199254740993}}` {
		t.Errorf("json: %s, %v", got, err)
	}
	if _, err := answer(js, `{"id": 12345678901234567890}`); err == nil {
		t.Error("json beyond int64: accepted")
	}
}
