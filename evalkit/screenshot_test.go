package evalkit

import (
	"image/png"
	"os"
	"testing"
)

// TestReportScreenshot checks a screenshot of the HTML report taken by a
// headless browser (.ci/steps/20-report-browser.sh sets
// RAGTRIAGE_SCREENSHOT to its path): the page must have rendered text,
// tables and plots, not a blank or single-colour page.
func TestReportScreenshot(t *testing.T) {
	path := os.Getenv("RAGTRIAGE_SCREENSHOT")
	if path == "" {
		t.Skip("RAGTRIAGE_SCREENSHOT not set: run by .ci/steps/20-report-browser.sh")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b := img.Bounds()
	colours := map[uint32]bool{}
	nonWhite, total := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			colours[r<<16|g<<8|bl] = true
			if r < 240 || g < 240 || bl < 240 {
				nonWhite++
			}
			total++
		}
	}
	share := float64(nonWhite) / float64(total)
	t.Logf("%s: %dx%d, %d distinct colours, %.1f%% non-white", path, b.Dx(), b.Dy(), len(colours), 100*share)
	if b.Dx() < 800 || b.Dy() < 600 {
		t.Errorf("screenshot is %dx%d; want at least 800x600", b.Dx(), b.Dy())
	}
	// Text, table borders, the heat maps and the curves give hundreds of
	// colours and cover a few percent of the page; a blank page has 1.
	if len(colours) < 50 {
		t.Errorf("%d distinct colours: the page looks blank", len(colours))
	}
	if share < 0.02 {
		t.Errorf("only %.2f%% of the pixels are not white: the page looks blank", 100*share)
	}
}
