# Install rules and the Debian package (CPack DEB): `cmake --install build --prefix P` gives
#   P/bin/pitwall, P/bin/pitwall-gui
#   P/lib/pitwall/                 the private shared libraries, the engine module and its command index
#   P/lib/pitwall/plugins/         the model plugins with their schema and manifest files
#   P/share/pitwall/configs/       the example configs (the reference workloads' keys)
#   P/share/man/man1/              a man page per command (written by `pitwall` from docs/commands.md)
#   P/share/doc/pitwall/           the README, the command reference and the architecture
#   P/share/applications, icons, metainfo, bash-completion: the desktop integration (resources/)
# The programs find the rest relative to their own path (core/util/paths.cpp: <bin>/../lib/pitwall/plugins), so the
# tree works at any prefix. The run paths are relative ($ORIGIN) for the same reason.

set(PITWALL_INSTALL_PRIVATE_LIBDIR lib/pitwall)
set(PITWALL_INSTALL_PLUGINDIR lib/pitwall/plugins)
set(PITWALL_INSTALL_DATADIR share/pitwall)
set(PITWALL_INSTALL_DOCDIR share/doc/pitwall)

set(_pitwall_shared_libraries)
foreach(library pitwall_core pitwall_cli pitwall_synth pitwall_image pitwall_drive pitwall_engine pitwall_ui)
  if(TARGET ${library})
    list(APPEND _pitwall_shared_libraries ${library})
  endif()
endforeach()
set_target_properties(${_pitwall_shared_libraries} PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS ${_pitwall_shared_libraries} LIBRARY DESTINATION ${PITWALL_INSTALL_PRIVATE_LIBDIR} COMPONENT runtime)

set(_pitwall_programs pitwall)
if(TARGET pitwall-gui)
  list(APPEND _pitwall_programs pitwall-gui)
endif()
set_target_properties(${_pitwall_programs} PROPERTIES INSTALL_RPATH "$ORIGIN/../${PITWALL_INSTALL_PRIVATE_LIBDIR}")
install(TARGETS ${_pitwall_programs} RUNTIME DESTINATION bin COMPONENT runtime)

if(TARGET pitwall_cli_engine)
  set_target_properties(pitwall_cli_engine PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS pitwall_cli_engine LIBRARY DESTINATION ${PITWALL_INSTALL_PRIVATE_LIBDIR} COMPONENT runtime)
  install(FILES ${PITWALL_OUTPUT_DIR}/lib/pitwall/engine-commands.tsv
          DESTINATION ${PITWALL_INSTALL_PRIVATE_LIBDIR} COMPONENT runtime)
endif()

# The plugins: every MODULE of all_plugins named pitwall_plugin_*, then the schema and manifest files beside them.
foreach(plugin transfuser autospeed)
  if(TARGET pitwall_plugin_${plugin})
    set_target_properties(pitwall_plugin_${plugin} PROPERTIES INSTALL_RPATH "$ORIGIN/..")
    install(TARGETS pitwall_plugin_${plugin} LIBRARY DESTINATION ${PITWALL_INSTALL_PLUGINDIR} COMPONENT runtime)
  endif()
endforeach()
install(DIRECTORY ${PITWALL_PLUGIN_OUTPUT_DIR}/ DESTINATION ${PITWALL_INSTALL_PLUGINDIR} COMPONENT runtime
        FILES_MATCHING PATTERN "*.schema.yaml" PATTERN "*.plugin.json")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${PITWALL_INSTALL_DATADIR}/configs COMPONENT runtime
        FILES_MATCHING PATTERN "*.yaml")
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/commands.md
              ${PROJECT_SOURCE_DIR}/docs/architecture.md
        DESTINATION ${PITWALL_INSTALL_DOCDIR} COMPONENT runtime)
# The user guide: its pages and the screenshots `cmake --build build --target guide` rendered (docs/guide/README.md).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/guide DESTINATION ${PITWALL_INSTALL_DOCDIR} COMPONENT runtime)

# Man pages: `pitwall internal-write-man-pages DIR` renders every command's --help (the text of docs/commands.md
# and the options declared in the code) as roff, and pitwall-gui --write-man-page its own, then gzip -9n (no name or time in the header); with the engine, its commands too.
set(_pitwall_man_dir ${CMAKE_BINARY_DIR}/man/man1)
set(_pitwall_man_stamp ${CMAKE_BINARY_DIR}/man/man-pages.stamp)
set(_pitwall_man_depends pitwall ${PROJECT_SOURCE_DIR}/docs/commands.md)
if(TARGET pitwall_engine_index)
  list(APPEND _pitwall_man_depends pitwall_engine_index ${PITWALL_OUTPUT_DIR}/lib/pitwall/engine-commands.tsv)
endif()
set(_pitwall_gui_man)
if(TARGET pitwall-gui)
  list(APPEND _pitwall_man_depends pitwall-gui)
  set(_pitwall_gui_man COMMAND pitwall-gui --write-man-page ${_pitwall_man_dir}/pitwall-gui.1)
endif()
add_custom_command(OUTPUT ${_pitwall_man_stamp}
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${_pitwall_man_dir}
  COMMAND pitwall internal-write-man-pages ${_pitwall_man_dir}
  ${_pitwall_gui_man}
  COMMAND sh -c "gzip -9nf \"$0\"/*.1" ${_pitwall_man_dir}
  COMMAND ${CMAKE_COMMAND} -E touch ${_pitwall_man_stamp}
  DEPENDS ${_pitwall_man_depends}
  COMMENT "Writing the man pages from the commands' --help"
  VERBATIM)
add_custom_target(pitwall_man_pages ALL DEPENDS ${_pitwall_man_stamp})
install(DIRECTORY ${_pitwall_man_dir} DESTINATION share/man COMPONENT runtime)

# The desktop integration and the completion (resources/).
set(_resources ${PROJECT_SOURCE_DIR}/resources)
if(TARGET pitwall-gui)
  install(FILES ${_resources}/org.pitwall.Pitwall.desktop DESTINATION share/applications COMPONENT runtime)
  install(FILES ${_resources}/org.pitwall.Pitwall.metainfo.xml DESTINATION share/metainfo COMPONENT runtime)
  install(FILES ${_resources}/icons/pitwall.svg DESTINATION share/icons/hicolor/scalable/apps
          RENAME org.pitwall.Pitwall.svg COMPONENT runtime)
  foreach(size 16 32 48 64 128 256)
    install(FILES ${_resources}/icons/pitwall-${size}.png DESTINATION share/icons/hicolor/${size}x${size}/apps
            RENAME org.pitwall.Pitwall.png COMPONENT runtime)
  endforeach()
endif()
install(FILES ${_resources}/completion/pitwall DESTINATION share/bash-completion/completions COMPONENT runtime)

# The changelog and copyright file every Debian package carries.
set(_pitwall_changelog ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
add_custom_command(OUTPUT ${_pitwall_changelog}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/packaging
  COMMAND sh -c "gzip -9nc \"$0\" > \"$1\"" ${PROJECT_SOURCE_DIR}/packaging/deb/changelog ${_pitwall_changelog}
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/deb/changelog
  COMMENT "Compressing the package's changelog"
  VERBATIM)
add_custom_target(pitwall_changelog ALL DEPENDS ${_pitwall_changelog})
install(FILES ${_pitwall_changelog} ${PROJECT_SOURCE_DIR}/packaging/deb/copyright
        DESTINATION ${PITWALL_INSTALL_DOCDIR} COMPONENT runtime)

# The Debian package: packaging/build-deb.sh runs `cpack -G DEB` in a build configured with the prefix /usr.
set(CPACK_PACKAGE_NAME pitwall)
set(CPACK_PACKAGE_VENDOR "Pitwall")
set(CPACK_PACKAGE_CONTACT "Pitwall developers <pitwall@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "experiment workbench for driving-perception models")
# The long description (cpack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY before it as the synopsis line).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "Pitwall trains autonomous-driving perception models with LibTorch, runs\nhyperparameter searches with one trial per logical GPU partition and keeps\nevery result in a local SQLite database that Optuna reads too. A Qt window\nplots throughput, loss, driving scores and search progress live; the same\nengine runs headless from the command line.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # pitwall_<version>_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://pitwall.example.org")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # Depends from the binaries (dpkg-shlibdeps)
# What no binary links but the window needs on a desktop: Qt's X11 and Wayland platform plugins.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
# The Python pieces: the reference benchmarks (PyTorch) and the Optuna interop checks.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-optuna, python3-torch, python3-torchvision, python3-yaml, libopenblas0-openmp")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_PACKAGE_FILE_NAME "pitwall_${PROJECT_VERSION}_amd64")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
