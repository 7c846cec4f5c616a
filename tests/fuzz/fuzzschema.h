#pragma once
// The schema the config and search-space targets check against: core's keys and the two model plugins' schema
// files from the source tree (read once), so inputs can name autospeed.* and transfuser keys as real ones do.

#include "core/config/schema.h"
#include "core/util/paths.h"
#include "tests/support/testenv.h"

namespace pitwall::fuzz {

inline const Schema& fuzzSchema()
{
    static const Schema schema = [] {
        Schema s = builtinSchema();
        for (const char* plugin : {"autospeed", "transfuser"}) {
            const std::string file = test::sourceFile("/plugins/") + plugin + "/" + plugin + ".schema.yaml";
            s.addFromYaml(readTextFile(file), file);
        }
        return s;
    }();
    return schema;
}

} // namespace pitwall::fuzz
