// The ops that read files a request names, added to the op table by the programs that have a file
// system (json/ops.hpp: register_file_ops): a separate file, so that the page, which never calls
// it, links none of them.
#include "json/model_json.hpp"
#include "json/ops.hpp"
#include "json/tokenize_json.hpp"

namespace attn {

void register_file_ops() {
  add_ops(model_file_ops());
  add_ops(tokenize_ops());
}

}  // namespace attn
