// libpq's pipeline mode (libpq_pipeline.cc), part of libpq_test: results and errors per batch,
// and the implicit transaction each batch is between two Syncs.
//
// Not thread-safe: uses the run's checker (libpq_support.h).

#ifndef FARMDB_REGRESS_PROTOCOL_LIBPQ_PIPELINE_H_
#define FARMDB_REGRESS_PROTOCOL_LIBPQ_PIPELINE_H_

namespace farmdb::regress {

void TestPipeline();
void TestPipelineTransactions();

}  // namespace farmdb::regress

#endif  // FARMDB_REGRESS_PROTOCOL_LIBPQ_PIPELINE_H_
