// Package dataset reads labeled datasets: JSON Lines files of the dataset
// shape (id, question, contexts[{id,text}], answer, referenceAnswer?,
// expected?), one row a line.
//
// It is the "datasets in" job of the offline kit. [ParseRow] decodes one
// line, rejecting a bad one with a [RowError] that names the field; a label
// that is absent is unlabeled, never false. Keys match exactly. [Checker]
// adds the warnings a whole file deserves (unknown or misplaced keys and
// unknown diagnosis labels, with the one likely meant; a file that is not
// JSON Lines). [FileSource] streams the rows of several
// files as replay [Item]s: a bad line is an item with its [Position] and
// reason, never dropped, and each file is described ([InputFile]: lines, bad
// lines, size, SHA-256) for the report. [Lines] and [LineFile] are the
// line reader underneath (non-blank lines, over-long lines reported and
// skipped without being held in memory); evalkit reads record files
// through them too.
//
// Package evalkit replays the items ([Source] is the interface it reads);
// the ragtriage command (calibrate, judge) reads rows with ParseRow.
//
//	src := dataset.NewFileSource("testdata/eval/fixture.jsonl")
//	defer src.Close()
//	for {
//		it, err := src.Next()
//		if err == io.EOF {
//			break
//		}
//		if it.Err != nil {
//			fmt.Println(it.Pos, it.Err) // file:line and why
//		}
//	}
package dataset
