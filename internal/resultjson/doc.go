// Package resultjson writes a guard.Result as JSON without encoding/json's
// reflection: the same bytes json.Marshal gives (or a json.Encoder with HTML
// escaping off), with no allocation beyond the destination buffer's growth.
//
// It exists for `ragtriage judge`, which writes one result per input line:
// with encoding/json the command judges about 27% fewer rows per second
// (GOMAXPROCS=1, BenchmarkJudgeCLI/workers=1: 36,200 rows/s against 50,100;
// BenchmarkJudgeStages/encode: 6.0 µs and 50 allocations against 1.1 µs and
// none, on a 2-core AMD EPYC; see the README's Speed section). Everything
// else encodes results with encoding/json; this package is internal so that
// it is not part of guard's API.
//
// The encoder follows guard.Result's shape field by field. TestResultLayout
// fails when that shape changes, and until the encoder is brought up to
// date Append hands the result to encoding/json, so the bytes stay right.
package resultjson
