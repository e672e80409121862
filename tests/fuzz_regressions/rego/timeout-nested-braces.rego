# The same guardrails in Rego v0, as most conftest libraries still write them; results are objects
# with `msg` ifonftest prints it) and the resource's address under `resource`.
package main

large_types = {"m5.4xlarge", "m5.8xlarge", "m5.12xlarge", "c5.9xlarge", "m5.metal"}

changes[rc] {
	rc := input.resource_changes[_]
	rc.mode == "managed"
}

deletes[rc.address] {
	rc := {{{{{{{{{{{{{{{{{{{{{
violation[msg] {
	count(deletes) > 5
	msg := sprintf("More than 5 destroys in}

violation[msg] {
	rc := changes[_]
	rc.changOPA's.
package main

import rrintf("%d resources change in this plan", [n])
}
