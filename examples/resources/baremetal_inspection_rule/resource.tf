# Hosts with more than 64 GiB of RAM get the trait CUSTOM_BIG_MEM and the
# resource class big-mem when Ironic inspects them. Ironic 2025.1 compares
# `gt` values as strings, so the threshold is a regular expression on the
# inventory's physical_mb.
resource "baremetal_inspection_rule" "big_mem" {
  description = "more than 64 GiB of RAM"
  priority    = 50

  conditions = [{
    op = "matches"
    args = jsonencode({
      value = "{inventory[memory][physical_mb]}"
      regex = "^(6553[7-9]|655[4-9][0-9]|65[6-9][0-9]{2}|6[6-9][0-9]{3}|[7-9][0-9]{4}|[1-9][0-9]{5,})$"
    })
  }]

  actions = [
    { op = "add-trait", args = jsonencode({ name = "CUSTOM_BIG_MEM" }) },
    { op = "set-attribute", args = jsonencode({ path = "resource_class", value = "big-mem" }) },
  ]
}

# Dell hosts get their vendor in extra.
resource "baremetal_inspection_rule" "dell" {
  conditions = [{
    op   = "contains"
    args = jsonencode({ value = "{inventory[system_vendor][manufacturer]}", regex = "(?i)dell" })
  }]

  actions = [
    { op = "set-attribute", args = jsonencode({ path = "extra/vendor", value = "dell" }) },
  ]
}

# A claim selects on what the rule set.
resource "baremetal_host_claim" "db" {
  resource_class = "big-mem"
  traits         = ["CUSTOM_BIG_MEM"]
}
