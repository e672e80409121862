# A runaway policy: about 10^12 iterations. Planlens stops it after its time limit.
package main

import rego.v1

deny contains msg if {
	some i in numbers.range(1, 1000000)
	some j in numbers.range(1, 1000000)
	i * j == -1
	msg := "never"
}
