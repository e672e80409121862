# The team's five guardrails (BRIEF.md) as a conftest policy: input is the plan JSON itself.
# Written for Planlens in Rego v1; helpers come from lib.rego (package lib).
package main

import data.lib

# Destroy needs approval: every delete, also the delete half of a replace.
deny contains msg if {
	some rc in lib.managed_changes
	"delete" in rc.change.actions
	msg := sprintf("Destroy needs approval: %s", [rc.address])
}

# An aggregate over the whole plan.
deny contains msg if {
	n := count(lib.destroyed)
	n > 5
	msg := sprintf("More than 5 destroys in one plan (%d)", [n])
}

# Large instance types are for prod only; the environment is the plan's variable.
deny contains msg if {
	some rc in lib.managed_changes
	rc.type == "aws_instance"
	lib.creates_or_updates(rc)
	not lib.is_prod(object.get(input, ["variables", "environment", "value"], ""))
	type := rc.change.after.instance_type
	lib.large_instance(type)
	msg := sprintf("Instance %s of type %s not allowed outside prod", [rc.address, type])
}

# AKS node pools keep at least three nodes.
deny contains msg if {
	some rc in lib.managed_changes
	rc.type == "azurerm_kubernetes_cluster_node_pool"
	lib.creates_or_updates(rc)
	rc.change.after.min_count < 3
	msg := sprintf("Node pool %s has min_count %v; it must stay >= 3", [rc.address, rc.change.after.min_count])
}

warn contains msg if {
	some rc in lib.managed_changes
	startswith(rc.type, "aws_security_group")
	rc.change.actions != ["no-op"]
	msg := sprintf("Security group changed: %s", [rc.address])
}
