// Reads pairs of samples (one benchmark per two lines: "x1 x2 ...", "y1 y2 ...") and prints
// go-moremath's two-sided Mann-Whitney U p-value (benchstat's test) with full precision.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/aclements/go-moremath/stats"
)

func parse(s string) []float64 {
	var out []float64
	for _, f := range strings.Fields(s) {
		v, _ := strconv.ParseFloat(f, 64)
		out = append(out, v)
	}
	return out
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		x := parse(sc.Text())
		sc.Scan()
		y := parse(sc.Text())
		r, err := stats.MannWhitneyUTest(x, y, stats.LocationDiffers)
		if err != nil {
			fmt.Println("1")
			continue
		}
		fmt.Printf("%.17g\n", r.P)
	}
}
