# Declarative helpers so that each folder's CMakeLists.txt stays a few lines.

set(PITWALL_WARNINGS -Wall -Wextra -Wno-unused-parameter)

# pitwall_add_library(NAME <target> ALIAS <Ns::Name> [STATIC|SHARED] SOURCES ... [PUBLIC_LINK ...] [PRIVATE_LINK ...])
function(pitwall_add_library target)
  cmake_parse_arguments(ARG "STATIC;SHARED" "ALIAS" "SOURCES;PUBLIC_LINK;PRIVATE_LINK" ${ARGN})
  # Libraries are shared by default so that the mains and the plugins they load share one copy.
  set(kind SHARED)
  if(ARG_STATIC)
    set(kind STATIC)
  endif()
  add_library(${target} ${kind} ${ARG_SOURCES})
  if(ARG_ALIAS)
    add_library(${ARG_ALIAS} ALIAS ${target})
  endif()
  target_compile_options(${target} PRIVATE ${PITWALL_WARNINGS})
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_LINK} PRIVATE ${ARG_PRIVATE_LINK})
endfunction()

# pitwall_add_plugin(<name> SOURCES ... [LINK ...] [SCHEMA file.schema.yaml] [KIND model|dataset|runner
#                    DESCRIPTION "one line"])
# A MODULE library in the plugin folder; its schema file is copied beside it so that tools learn the plugin's
# config keys without loading the library. With KIND and DESCRIPTION, the plugin's info is compiled in from them
# (PITWALL_DECLARE_PLUGIN_FROM_BUILD() in core/plugin/plugin.h) and the same values go into the manifest
# <name>.plugin.json beside the library, which `pitwall plugins` reads instead of loading it.
function(pitwall_add_plugin name)
  cmake_parse_arguments(ARG "" "SCHEMA;KIND;DESCRIPTION" "SOURCES;LINK" ${ARGN})
  set(target pitwall_plugin_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME "${name}"
    LIBRARY_OUTPUT_DIRECTORY ${PITWALL_PLUGIN_OUTPUT_DIR})
  target_compile_options(${target} PRIVATE ${PITWALL_WARNINGS})
  target_link_libraries(${target} PRIVATE ${ARG_LINK})
  target_compile_definitions(${target} PRIVATE PITWALL_BUILD_ID="${PITWALL_BUILD_ID}")
  add_dependencies(all_plugins ${target})
  if(ARG_SCHEMA)
    pitwall_add_plugin_schema(${name} ${ARG_SCHEMA})
  endif()
  if(ARG_KIND)
    pitwall_add_plugin_manifest(${name} ${target} "${ARG_KIND}" "${ARG_DESCRIPTION}" "${ARG_SCHEMA}")
  endif()
endfunction()

# The plugin's info as compile definitions and as the manifest <name>.plugin.json (see pitwall_add_plugin).
function(pitwall_add_plugin_manifest name target kind description schema)
  set(kinds model Model dataset Dataset runner Runner)
  list(FIND kinds "${kind}" at)
  if(at LESS 0 OR NOT description OR description MATCHES "[\"\\]")
    message(FATAL_ERROR "plugin ${name}: KIND must be model, dataset or runner, and DESCRIPTION a line without "
                        "quotes or backslashes")
  endif()
  math(EXPR at "${at} + 1")
  list(GET kinds ${at} enumerator)
  target_compile_definitions(${target} PRIVATE PITWALL_PLUGIN_NAME="${name}"
    PITWALL_PLUGIN_KIND=pitwall::PluginKind::${enumerator} PITWALL_PLUGIN_DESCRIPTION="${description}")
  set(json "{}")
  string(JSON json SET "${json}" name "\"${name}\"")
  string(JSON json SET "${json}" kind "\"${kind}\"")
  string(JSON json SET "${json}" description "\"${description}\"")
  string(JSON json SET "${json}" build_id "\"${PITWALL_BUILD_ID}\"")
  if(schema)
    string(JSON json SET "${json}" schema "\"${name}.schema.yaml\"")
  endif()
  file(GENERATE OUTPUT ${PITWALL_PLUGIN_OUTPUT_DIR}/${name}.plugin.json CONTENT "${json}\n")
endfunction()

# pitwall_add_model_plugin(<name> SCHEMA file DESCRIPTION "one line" IMPL_SOURCES ... PLUGIN_SOURCES ...)
# A LibTorch model plugin: its schema always; with the engine, the model code as the static library
# pitwall_<name>_impl (torch precompiled header; linked by the plugin and by the model's tests) and the MODULE.
function(pitwall_add_model_plugin name)
  cmake_parse_arguments(ARG "" "SCHEMA;DESCRIPTION" "IMPL_SOURCES;PLUGIN_SOURCES" ${ARGN})
  if(NOT PITWALL_BUILD_ENGINE)
    pitwall_add_plugin_schema(${name} ${ARG_SCHEMA}) # the keys are known even without the library
    return()
  endif()
  set(impl pitwall_${name}_impl)
  add_library(${impl} STATIC ${ARG_IMPL_SOURCES})
  target_link_libraries(${impl} PUBLIC Pitwall::Engine ${TORCH_LIBRARIES})
  target_include_directories(${impl} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_options(${impl} PRIVATE ${PITWALL_WARNINGS})
  pitwall_torch_pch(${impl})
  pitwall_add_plugin(${name} SOURCES ${ARG_PLUGIN_SOURCES} LINK ${impl} SCHEMA ${ARG_SCHEMA}
    KIND model DESCRIPTION "${ARG_DESCRIPTION}")
endfunction()

# Copies a plugin's schema (metadata) file into the plugin folder as <name>.schema.yaml.
function(pitwall_add_plugin_schema name file)
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/${file} ${PITWALL_PLUGIN_OUTPUT_DIR}/${name}.schema.yaml COPYONLY)
endfunction()

# What every test finds in its environment (tests/support/testenv.h): the checkout, the build folder, the CLI; and a
# state folder of the build's own (XDG_STATE_HOME: the searches tests start record their commands there as confirmed
# for resuming, core/search/resumereview.h, not in the user's home).
set(PITWALL_TEST_PATHS
  "PITWALL_SOURCE_DIR=${PROJECT_SOURCE_DIR};PITWALL_BINARY_DIR=${PITWALL_OUTPUT_DIR};PITWALL_CLI=$<TARGET_FILE:pitwall>"
  "XDG_STATE_HOME=${PITWALL_OUTPUT_DIR}/test-state")

# pitwall_test_path(<test> <VARIABLE> <path>): one more path in a test's environment (a helper executable, the GUI).
function(pitwall_test_path test variable path)
  set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "${variable}=${path}")
endfunction()

# The torch precompiled header (core/engine/internal/torch_pch.h), named relative to the checkout (an include
# directory), so that the generated cmake_pch.hxx holds no absolute path and a clone in another folder hits ccache for
# the header and for every object compiled with it. pitwall_add_torch_pch_anchor() builds it once (the target
# pitwall_torch_pch_anchor); every target that compiles torch code (the engine, the model plugins' libraries, the
# torch tests, the step benchmark) reuses it through pitwall_torch_pch(), which gives that target the anchor's flags:
# GCC ignores a precompiled header built with other -f options or macros (a target may define more macros, not
# fewer). Before, five targets built one each (about 65 s apiece).
# PITWALL_TORCH_OPTIMIZATION, when set (e.g. -O1), replaces the build type's level for all of them.
set(PITWALL_TORCH_OPTIMIZATION "" CACHE STRING
    "Optimisation flag for the code that compiles torch, e.g. -O1 (empty: the build type's)")
function(pitwall_add_torch_pch_anchor)
  add_library(pitwall_torch_pch_anchor OBJECT ${PROJECT_SOURCE_DIR}/core/engine/internal/torch_pch_anchor.cpp)
  target_compile_options(pitwall_torch_pch_anchor PRIVATE ${PITWALL_WARNINGS})
  target_link_libraries(pitwall_torch_pch_anchor PRIVATE ${TORCH_LIBRARIES})
  _pitwall_torch_flags(pitwall_torch_pch_anchor)
  target_precompile_headers(pitwall_torch_pch_anchor PRIVATE [["core/engine/internal/torch_pch.h"]])
endfunction()

function(_pitwall_torch_flags target)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  # -fPIC for executables too: the header is built for the shared engine, and -fPIE would not match it.
  target_compile_options(${target} PRIVATE ${TORCH_CXX_FLAGS} -fPIC ${PITWALL_TORCH_OPTIMIZATION})
endfunction()

function(pitwall_torch_pch target)
  _pitwall_torch_flags(${target})
  target_precompile_headers(${target} REUSE_FROM pitwall_torch_pch_anchor)
endfunction()

# pitwall_pch(<target> <header>): a precompiled header of standard and third-party headers for a target with many
# sources (pitwall_core, pitwall_ui), named relative to the checkout like the torch one. PITWALL_PCH=OFF turns them
# all off (a build that checks each source includes what it uses).
function(pitwall_pch target header)
  if(PITWALL_PCH)
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
    target_precompile_headers(${target} PRIVATE "\"${header}\"") # quoted: kept verbatim, no absolute path
  endif()
endfunction()

# pitwall_test_pch_anchors(): the two executables that build the precompiled headers the Qt Test executables share
# (tests/support/pch_core.h, and pch_ui.h with the window). A test reuses one only when its compile flags are the
# anchor's (GCC ignores a precompiled header built with other macros), so the anchors are built like the tests:
# the same warnings, definitions and Qt Test, and Pitwall::Ui for the window's.
function(pitwall_test_pch_anchors)
  if(NOT PITWALL_PCH)
    return()
  endif()
  set(groups core)
  if(TARGET Pitwall::Ui)
    list(APPEND groups ui)
  endif()
  foreach(group ${groups})
    set(anchor pitwall_test_pch_${group})
    add_executable(${anchor} ${PROJECT_SOURCE_DIR}/tests/support/pch_anchor.cpp)
    target_compile_options(${anchor} PRIVATE ${PITWALL_WARNINGS})
    target_compile_definitions(${anchor} PRIVATE QT_NO_KEYWORDS)
    target_include_directories(${anchor} PRIVATE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${anchor} PRIVATE Qt6::Test)
    if(group STREQUAL "ui")
      target_link_libraries(${anchor} PRIVATE Pitwall::Ui)
    endif()
    target_precompile_headers(${anchor} PRIVATE "\"tests/support/pch_${group}.h\"")
  endforeach()
endfunction()

# pitwall_torch_test(<test>): a test that compiles torch code (after its pitwall_add_test): the shared torch
# precompiled header and flags (pitwall_torch_pch).
function(pitwall_torch_test name)
  # What the build promised: the CUDA code compiled (PITWALL_CUDA), so a CUDA build that lost it fails its tests.
  target_compile_definitions(${name} PRIVATE PITWALL_TEST_EXPECT_CUDA=$<BOOL:${PITWALL_CUDA}>)
  pitwall_torch_pch(${name})
endfunction()

# pitwall_add_test(<name> SOURCES ... [LINK ...] [LABELS ...] [TIMEOUT s] [MAY_SKIP])
# One Qt Test executable per feature, registered with CTest under its own name. MAY_SKIP: the test may skip for a
# missing optional component (PITWALL_SKIP_OPTIONAL and PITWALL_TEST_MAIN, tests/support/components.h); its exit
# status 77 is CTest's "Not Run".
function(pitwall_add_test name)
  cmake_parse_arguments(ARG "MAY_SKIP" "TIMEOUT" "SOURCES;LINK;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  # Under AddressSanitizer: wait for Qt Test's watchdog thread to end before the leak check at exit
  # (tests/support/sanitizer_exit.cpp says why).
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
    target_sources(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support/sanitizer_exit.cpp)
  endif()
  target_compile_options(${name} PRIVATE ${PITWALL_WARNINGS})
  target_link_libraries(${name} PRIVATE Qt6::Test ${ARG_LINK})
  # No path is compiled in (a clone in another folder must compile the same objects and hit ccache): the test reads
  # the checkout, the build folder and the CLI from the environment set below (tests/support/testenv.h).
  target_compile_definitions(${name} PRIVATE QT_NO_KEYWORDS)
  set_target_properties(${name} PROPERTIES AUTOMOC ON RUNTIME_OUTPUT_DIRECTORY ${PITWALL_OUTPUT_DIR}/tests)
  add_dependencies(${name} pitwall)
  # The shared Qt Test precompiled header (pitwall_test_pch_anchors): the window's for tests of the window, none for
  # tests that compile torch code (pitwall_torch_test gives those the torch one) or take the engine's flags.
  if(PITWALL_PCH AND NOT ARG_LINK MATCHES "Pitwall::Engine|_impl|torch|c10")
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
    if("Pitwall::Ui" IN_LIST ARG_LINK)
      target_precompile_headers(${name} REUSE_FROM pitwall_test_pch_ui)
    else()
      target_precompile_headers(${name} REUSE_FROM pitwall_test_pch_core)
    endif()
  endif()
  if(TARGET pitwall_engine_index)
    add_dependencies(${name} pitwall_engine_index)
  endif()
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  # XDG_CONFIG_HOME: the windows that tests open (and the pitwall-gui processes they start) keep their settings
  # (recent databases, theme) in the build tree, not in the settings of the user who runs the tests.
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT}
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;XDG_CONFIG_HOME=${CMAKE_BINARY_DIR}/test-settings;PITWALL_PLUGIN_PATH=${PITWALL_PLUGIN_OUTPUT_DIR};${PITWALL_TEST_PATHS}")
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
  if(ARG_MAY_SKIP)
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77) # pitwall::test::kSkipReturnCode
  endif()
endfunction()

# pitwall_add_newest_optuna_test(<test> [FUNCTION...]): the test <test> (made by pitwall_add_test) once more as
# <test>_newest_optuna, with the newest Optuna from PyPI instead of Debian's 3.1: PITWALL_TEST_OPTUNA_PYTHON names the
# checkout's .venv-optuna (packaging/install-optuna.sh; packaging/test.sh runs it before CTest). FUNCTION...: only
# these test functions (those that run Optuna). Labels interop and newest-optuna (not core: the sanitizer build
# does not run them).
function(pitwall_add_newest_optuna_test test)
  add_test(NAME ${test}_newest_optuna COMMAND ${test} ${ARGN})
  get_test_property(${test} TIMEOUT timeout)
  get_test_property(${test} SKIP_RETURN_CODE skip)
  set_tests_properties(${test}_newest_optuna PROPERTIES TIMEOUT ${timeout} LABELS "interop;newest-optuna"
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;PITWALL_PLUGIN_PATH=${PITWALL_PLUGIN_OUTPUT_DIR};${PITWALL_TEST_PATHS};PITWALL_TEST_OPTUNA_PYTHON=${PROJECT_SOURCE_DIR}/.venv-optuna/bin/python")
  if(skip)
    set_tests_properties(${test}_newest_optuna PROPERTIES SKIP_RETURN_CODE ${skip})
  endif()
endfunction()

# pitwall_add_fuzz_target(<name> SOURCES ... [LINK ...]): one fuzz target (tests/fuzz/fuzz_<name>.cpp defines
# LLVMFuzzerTestOneInput) over Pitwall::Core. With PITWALL_BUILD_TESTS: the executable <name>_replay and the CTest
# test fuzz_replay_<name> (labels core, fuzz) that runs every file of tests/fuzz/corpus/<name>/ through it. With
# PITWALL_BUILD_FUZZERS (clang only): the libFuzzer executable fuzz_<name> in <build>/fuzz/.
function(pitwall_add_fuzz_target name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  set(corpus ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${name})
  if(PITWALL_BUILD_TESTS)
    add_executable(${name}_replay ${ARG_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/replay_main.cpp)
    target_compile_options(${name}_replay PRIVATE ${PITWALL_WARNINGS})
    target_link_libraries(${name}_replay PRIVATE Pitwall::Core ${ARG_LINK})
    set_target_properties(${name}_replay PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PITWALL_OUTPUT_DIR}/tests)
    add_test(NAME fuzz_replay_${name} COMMAND ${name}_replay ${corpus})
    set_tests_properties(fuzz_replay_${name} PROPERTIES LABELS "core;fuzz" TIMEOUT 300 ENVIRONMENT "${PITWALL_TEST_PATHS}")
  endif()
  if(PITWALL_BUILD_FUZZERS)
    add_executable(fuzz_${name} ${ARG_SOURCES})
    target_compile_options(fuzz_${name} PRIVATE ${PITWALL_WARNINGS})
    target_link_libraries(fuzz_${name} PRIVATE Pitwall::Core ${ARG_LINK})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    set_target_properties(fuzz_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PITWALL_OUTPUT_DIR}/fuzz)
  endif()
endfunction()

# pitwall_quick_moc(): every AUTOMOC target in the project runs moc through a wrapper (cmake/pitwall-moc.sh.in) that
# passes it only the include folders of Qt, the checkout and the build. moc follows each #include it can resolve:
# with LibTorch's and the standard library's folders it read about 10,000 headers for one engine test (7 s against
# 0.1 s, the same output), and ccache does not cache moc, so every build paid it. Call once, after all targets.
function(pitwall_quick_moc)
  if(NOT TARGET Qt6::moc)
    return()
  endif()
  get_target_property(PITWALL_REAL_MOC Qt6::moc IMPORTED_LOCATION)
  if(NOT PITWALL_REAL_MOC)
    get_target_property(PITWALL_REAL_MOC Qt6::moc LOCATION)
  endif()
  get_target_property(qt_dirs Qt6::Core INTERFACE_INCLUDE_DIRECTORIES)
  set(patterns "")
  foreach(dir ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${qt_dirs})
    if(dir MATCHES "[][*?|'\" $]")
      return() # a folder name the shell pattern cannot hold: moc runs unwrapped
    endif()
    list(APPEND patterns "-I${dir}" "-I${dir}/*")
  endforeach()
  list(JOIN patterns "|" PITWALL_MOC_KEEP_PATTERNS)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/pitwall-moc.sh.in ${PROJECT_BINARY_DIR}/pitwall-moc @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
  _pitwall_quick_moc_in(${PROJECT_SOURCE_DIR})
endfunction()

function(_pitwall_quick_moc_in dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(automoc ${target} AUTOMOC)
    if(automoc)
      set_target_properties(${target} PROPERTIES AUTOMOC_EXECUTABLE ${PROJECT_BINARY_DIR}/pitwall-moc)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    _pitwall_quick_moc_in(${sub})
  endforeach()
endfunction()
