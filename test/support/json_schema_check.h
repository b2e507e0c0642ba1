// The start of a python3 script (`python3 -c SCRIPT SCHEMA REPORT`) that checks ppeout's JSON report
// against docs/report.schema.json and leaves it in `report` for the test's own lines; prints "SKIP
// ..." and exits 0 where python3-jsonschema is not installed.
#pragma once

#include <string>

namespace ppe::testing {

inline std::string schemaCheckedScript(const char* rest)
{
    return std::string(R"(
import json, sys
try:
    import jsonschema
except ImportError:
    print("SKIP python3-jsonschema not installed"); sys.exit(0)
schema = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator(schema).validate(report)
)") + rest;
}

} // namespace ppe::testing
