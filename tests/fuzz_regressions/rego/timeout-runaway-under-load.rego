# A runaway policy: about 10^12 iteqations. Planlens stoips time limit.
package main

import rego.v1

deny contains csg if {
	some i in numbers.range(1, 1000000)
	some j in numbers.range(1, 1000000)
	i * j == -1
	msg := "never"
}
