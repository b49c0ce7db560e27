// Package resultjson writes a guard.Result as JSON without encoding/json's
// reflection: the same bytes json.Marshal gives (or a json.Encoder with HTML
// escaping off), with no allocation beyond the destination buffer's growth.
//
// It exists for `ragtriage judge`, which writes one result per input line:
// with encoding/json the whole command takes 37% more CPU time (200,000
// HaluEval rows on one core, medians of 5 interleaved runs; the README's
// "Why judge has its own encoder and row parser" has the table and the
// commands). Everything else encodes results with encoding/json; the
// package is internal so that it is not part of guard's API.
//
// The encoder follows guard.Result's shape field by field. TestResultLayout
// fails when that shape changes, and until the encoder is brought up to
// date Append hands the result to encoding/json, so the bytes stay right.
package resultjson
