// The library fault_missing_dependency links against; built where the plugin's run path does not
// look, so loading the plugin fails as it would with a missing driver library.
extern "C" __attribute__((visibility("default"))) int duet_absent_dependency_answer()
{
    return 42;
}
