# simbackend/: phases as replay actions, `pas2p replay` (real MPI), `pas2p simulate`
# (SimGrid SMPI), what-if and sweeps, export to stock SimGrid traces, `pas2p calibrate`

# ---- unit tests
add_executable(test_actions unit/test_actions.c)
target_link_libraries(test_actions PRIVATE pas2p_simbackend PkgConfig::CMOCKA)
add_test(NAME unit_actions COMMAND test_actions)

# pas2p replay: the signature's phases as real MPI on this machine (tests/data/replay-actions:
# every action kind by hand; the cg signature end to end; closed-form.sig.xml with its
# computation kept as a timed wait: PET is 10 x (1 s + a local 1 MB message)).
# the cg signature with phases cut by the calls alone (--compute-similarity 0): the same
# phases on every rank whatever the machine's load, which a replay needs (phase closure)
add_test(NAME replay_signature COMMAND ${EXPECT} --out "^relevant phases = [1-9]"
  -- ${PAS2P} analyze ${W}/app_cg --relevance 0.1 --compute-similarity 0 -o ${W}/cg-rep-sig.xml)
set_tests_properties(replay_signature PROPERTIES FIXTURES_REQUIRED app_cg FIXTURES_SETUP cg_rep_sig)
add_test(NAME replay_every_action COMMAND bash ${T}/replay_kinds.sh ${MPIRUN} --
  $<TARGET_FILE:pas2p_replayer> ${CMAKE_BINARY_DIR}/bin/pas2p-simreplay
  ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml ${D}/replay-actions ${W})
add_test(NAME replay_app COMMAND ${EXPECT} --clean ${W}/rep-cg --out "^method = replay"
  --out "computation as the calibrated kernel" --out "^PETE = [+-][0-9.]+ %" --out "^ +rest "
  -- ${PAS2P} replay ${W}/cg-rep-sig.xml -o ${W}/rep-cg --aet 2 -- ${MPIRUN} -np 4)
# a signature whose ranks' kernel calibrations are far apart (traced beside other jobs):
# the replay says so (its rank 0 calibrated at a tenth of the others here)
add_test(NAME replay_kernel_rates_differ COMMAND bash -c [=[
  sed '0,/kernel_rate="[^"]*"/s//kernel_rate="5e+05"/' "$1" >"$2" || exit 1
  shift 2; exec "$@"
  ]=] kdiff ${W}/cg-rep-sig.xml ${W}/cg-kdiff.xml ${EXPECT} --clean ${W}/rep-kdiff
  --out "^note: the trace's kernel calibrations differ 1[0-9]\\.[0-9]x between ranks \\(rank [1-3]: [0-9.e+]+ blocks/s, rank 0: 5e\\+05\\)"
  --out "^PET = " -- ${PAS2P} replay ${W}/cg-kdiff.xml --reps 1 -o ${W}/rep-kdiff -- ${MPIRUN} -np 4)
set_tests_properties(replay_kernel_rates_differ PROPERTIES FIXTURES_REQUIRED cg_rep_sig)
add_test(NAME replay_show COMMAND ${EXPECT} --out "^method = replay" --out "^PET = "
  -- ${PAS2P} show ${W}/rep-cg/prediction.xml)
set_tests_properties(replay_show PROPERTIES DEPENDS replay_app)
# (10.0-10.99 s: a loaded machine only lengthens a timed wait; the ASan suite beside
# another test made the 1.001 s wait 1.030 s: PET 10.30 s)
add_test(NAME replay_sleep_closed_form COMMAND ${EXPECT} --clean ${W}/rep-cf
  --out "^PET = 10\\.[0-9]+ s" --out "computation as a timed wait"
  -- ${PAS2P} replay ${D}/closed-form.sig.xml --compute=sleep --reps 1 -o ${W}/rep-cf
     -- ${MPIRUN} -np 2)
# the warm-up repetition replays the messages, not the computation: --reps 2 is the
# 1 s phase timed once after a warm-up of ~0 s, so the replay's SET is ~1 s, not 2 s
add_test(NAME replay_warmup_no_compute COMMAND ${EXPECT} --clean ${W}/rep-wu
  --out "^PET = 10\\.[0-2][0-9]* s" --out "^SET = 1\\.[0-3][0-9]* s"
  -- ${PAS2P} replay ${D}/closed-form.sig.xml --compute=sleep --reps 2 -o ${W}/rep-wu
     -- ${MPIRUN} -np 2)
# a phase whose timed repetitions disagree is replayed again until they agree
add_test(NAME replay_unsteady COMMAND bash ${T}/replay_unsteady.sh ${PAS2P} ${D}/closed-form.sig.xml
  ${W} ${MPIRUN} -np 2)
add_test(NAME replay_relative COMMAND bash ${T}/replay_relative.sh ${PAS2P} ${D}/closed-form.sig.xml
  ${D}/subcomm.sig.xml ${W} ${MPIRUN} -np 2)
add_test(NAME replay_communicators COMMAND ${EXPECT} --clean ${W}/rep-sc --out "^PET = [0-9.]+ s"
  -- ${PAS2P} replay ${D}/subcomm.sig.xml --compute sleep -o ${W}/rep-sc -- ${MPIRUN} -np 2)
add_test(NAME replay_export_closed_form COMMAND bash ${T}/replay_export.sh ${PAS2P}
  ${D}/closed-form.sig.xml ${D}/one-link.xml ${D}/hosts-ab.txt ${W}/exp-cf 0.01)
add_test(NAME replay_export_cg COMMAND bash ${T}/replay_export.sh ${PAS2P}
  ${W}/cg-rep-sig.xml ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml ${D}/hosts-gbe4.txt ${W}/exp-cg)
add_test(NAME bad_replay_np COMMAND ${EXPECT} --fail --one-line
  --out "the signature is of a 4-rank run, the launcher asks for 2: launch with -np 4"
  -- ${PAS2P} replay ${W}/cg-rep-sig.xml -o ${W}/rep-np -- ${MPIRUN} -np 2)
add_test(NAME bad_replay_np_at_run COMMAND ${EXPECT} --fail --one-line --clean ${W}/rep-np2
  --out "the actions are for 4 ranks, this launch started 2: launch with -np 4"
  -- ${PAS2P} replay ${W}/cg-rep-sig.xml -o ${W}/rep-np2 -- ${MPIRUN} -H localhost:2)
add_test(NAME bad_replay_no_kernel COMMAND ${EXPECT} --fail --one-line
  --out "rank 0 has no kernel calibration.*--compute sleep"
  -- ${PAS2P} replay ${D}/closed-form.sig.xml -- ${MPIRUN} -np 2)
add_test(NAME bad_replay_no_launcher COMMAND ${EXPECT} --fail --one-line --out "no launcher"
  -- ${PAS2P} replay ${D}/closed-form.sig.xml)
add_test(NAME bad_replay_missing_replayer COMMAND ${EXPECT} --fail --one-line
  --out "the replayer /nonexistent/replayer is missing"
  -- env PAS2P_REPLAYER=/nonexistent/replayer ${PAS2P} replay ${D}/closed-form.sig.xml
     --compute sleep -o ${W}/rep-missing -- ${MPIRUN} -np 2)
add_test(NAME bad_replay_inexpressible COMMAND ${EXPECT} --fail --one-line --clean ${W}/rep-bad
  --out "MPI_Startall cannot be replayed: the signature does not say which persistent requests"
  -- ${PAS2P} replay ${D}/unnamed-start.sig.xml --compute sleep -o ${W}/rep-bad -- ${MPIRUN} -np 2)
# a collective on a communicator that is not the world in order (CP2K's grids): exported
# as the messages of a linear algorithm between its members' world ranks (tag 32767), which
# stock smpireplaymain replays (it was refused: stock collectives are on MPI_COMM_WORLD)
add_test(NAME replay_export_subcomm COMMAND bash ${T}/replay_export.sh ${PAS2P}
  ${D}/subcomm.sig.xml ${D}/one-link.xml ${D}/hosts-ab.txt ${W}/exp-sc)
add_test(NAME replay_export_subcomm_messages COMMAND grep -qx "0 irecv 1 32767 64"
  ${W}/exp-sc/export/phase-1/rank-00000.txt)
# a collective on MPI_COMM_SELF (PETSc's, dolfinx's): nothing between ranks, left out
add_test(NAME replay_export_self COMMAND bash ${T}/replay_export.sh ${PAS2P}
  ${D}/selfcoll.sig.xml ${D}/one-link.xml ${D}/hosts-ab.txt ${W}/exp-self 0.01)
set_tests_properties(replay_export_subcomm PROPERTIES FIXTURES_SETUP exp_sc)
set_tests_properties(replay_export_subcomm_messages PROPERTIES FIXTURES_REQUIRED exp_sc)
set_tests_properties(replay_app bad_replay_np bad_replay_np_at_run replay_export_cg
  PROPERTIES FIXTURES_REQUIRED cg_rep_sig)

# pas2p simulate: SimGrid SMPI replays of hand-made signatures with closed-form times
# (tests/data/closed-form.sig.xml: one phase x 10, 1 s of compute then 1 MB over one 1 GB/s,
# 10 us link; SimGrid's bandwidth factors and cross-traffic off, so one occurrence takes
# 1 + 10e-6 + 1e-3 s).  What-if factors move PET by exactly what the closed form says.
set(EXACT --sg-cfg network/model:CM02 --sg-cfg network/crosstraffic:0)
# a pipeline whose rank 0 split its sweep into two time variants and rank 1 did not
# (tests/data/variants.sig.xml): simulated and replayed with the variants merged, each
# variant's id timed
add_test(NAME simulate_variants_merged COMMAND ${EXPECT} --clean ${W}/sim-var
  --out "with the same calls as one" --out "^PET = [0-9.]+ s"
  -- ${PAS2P} simulate ${D}/variants.sig.xml --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml
     -o ${W}/sim-var)
add_test(NAME replay_variants_merged COMMAND ${EXPECT} --clean ${W}/rep-var
  --out "with the same calls as one" --out "^PET = [0-9.]+ s"
  -- ${PAS2P} replay ${D}/variants.sig.xml --compute sleep -o ${W}/rep-var -- ${MPIRUN} -np 2)
# the variant (rank 0's phase 3, weight 3) is timed under its own id too.  Checked in rank
# 0's times, not in the table printed: that is of the rank with the largest PET, which the
# replay's noise picks (CI once printed rank 1's, which has no phase 3)
add_test(NAME replay_variants_merged_timed COMMAND grep -q "^phase 3 [0-9]" ${W}/rep-var/rank-00000.times)
set_tests_properties(replay_variants_merged PROPERTIES FIXTURES_SETUP rep_var)
set_tests_properties(replay_variants_merged_timed PROPERTIES FIXTURES_REQUIRED rep_var)
# the closed form with rank 0's phase split into variants of 1 s (x6) and 1.5 s (x4):
# merged, exact (12.0101 s), and exported with both variants as rows of one phase
add_test(NAME simulate_variants_closed_form COMMAND ${EXPECT} --clean ${W}/sim-cfv
  --out "with the same calls as one" --out "^PET = 12\\.0101000? s"
  -- ${PAS2P} simulate ${D}/closed-form-variants.sig.xml --platform ${D}/one-link.xml ${EXACT}
     -o ${W}/sim-cfv)
add_test(NAME replay_export_variants COMMAND bash ${T}/replay_export.sh ${PAS2P}
  ${D}/closed-form-variants.sig.xml ${D}/one-link.xml ${D}/hosts-ab.txt ${W}/exp-cfv 0.01)
add_test(NAME replay_export_variants_weights COMMAND grep -qx "0,1,4,1.50101" ${W}/exp-cfv/export/weights.csv)
set_tests_properties(replay_export_variants PROPERTIES FIXTURES_SETUP exp_cfv)
set_tests_properties(replay_export_variants_weights PROPERTIES FIXTURES_REQUIRED exp_cfv)
add_test(NAME simulate_closed_form COMMAND ${EXPECT} --clean ${W}/sim-cf --out "^PET = 10\\.0101000? s"
  --out "^ +1 +10 +1\\.001010000 +1\\.001010" --out "^method = simulate"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/one-link.xml ${EXACT} -o ${W}/sim-cf)
# a pipeline stage (tests/data/closed-form-pipeline.sig.xml): the representative only
# sends, and is done in 1 s; the phase's time is the slice's, until rank 1 has received and
# computed: 2.000011 s, PET = 20.00011 s (each rank's own time gave 10 s)
# a full trace (tests/mpi/probe.c traced by an ASan build: data/probe-late) whose MPI_Probe
# comes before its message in simulated time: SimGrid's MPI_Probe polls iprobe, and at
# smpi/iprobe:0 the simulated clock never moved (the simulation hung); a timeout, not a hang
add_test(NAME simulate_full_trace_probe_late COMMAND ${EXPECT} --clean ${W}/sim-probe-late
  --out "^PET = 0\\.0[0-9]+ s" -- timeout 60 ${PAS2P} simulate --full-trace ${D}/probe-late
  --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml -o ${W}/sim-probe-late)
add_test(NAME simulate_pipeline_closed_form COMMAND ${EXPECT} --clean ${W}/sim-cfp
  --out "^PET = 20\\.000110? s" --out "^ +1 +10 +2\\.000011000 +2\\.00001"
  -- ${PAS2P} simulate ${D}/closed-form-pipeline.sig.xml --platform ${D}/one-link.xml ${EXACT}
     -o ${W}/sim-cfp)
# wavefront's sweeps (analyzer.cmake's trace, np 4) cut into their k-block stages
# (pipeline stages, where some ranks only send) simulated against the full trace, ranks on
# separate GbE nodes: each stage lasts until its last rank is done (simulate took the
# representative's own time: -45 to -47 % on three traces; now -2 %)
add_test(NAME simulate_pipeline_stages COMMAND ${EXPECT} --out "^relevant phases = "
  -- ${PAS2P} analyze ${W}/wavefront-pipe --inline-events 16 --compute-similarity 0
     -o ${W}/wavefront-stages.xml)
add_test(NAME simulate_pipeline_stages_vs_full COMMAND bash ${T}/sim_vs_full.sh ${PAS2P}
  ${W}/wavefront-stages.xml ${W}/wavefront-pipe ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml
  ${W} 10 --map round-robin)
set_tests_properties(simulate_pipeline_stages PROPERTIES FIXTURES_REQUIRED wavefront_pipe
  FIXTURES_SETUP wavefront_stages)
set_tests_properties(simulate_pipeline_stages_vs_full PROPERTIES FIXTURES_REQUIRED
  "wavefront_pipe;wavefront_stages")
add_test(NAME simulate_whatif_speed COMMAND ${EXPECT} --clean ${W}/sim-speed --out "^PET = 5\\.0101000? s"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/one-link.xml ${EXACT}
  --what-if speed=2 -o ${W}/sim-speed)
add_test(NAME simulate_whatif_bw COMMAND ${EXPECT} --clean ${W}/sim-bw --out "^PET = 10\\.0201000? s"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/one-link.xml ${EXACT}
  --what-if bw=0.5 -o ${W}/sim-bw)
add_test(NAME simulate_whatif_lat COMMAND ${EXPECT} --clean ${W}/sim-lat --out "^PET = 10\\.0200000? s"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/one-link.xml ${EXACT}
  --what-if lat=100 -o ${W}/sim-lat)
# --sweep: the closed form at every point of a speed x bandwidth grid, CSV and plot
add_test(NAME simulate_sweep COMMAND ${EXPECT} --clean ${W}/sim-sweep --out "^points = 4$"
  --out "^ +1 +1 +0\\.5 +1 +10\\.020100 +1\\.0010$" --out "^ +4 +2 +1 +1 +5\\.010100 +0\\.5005$"
  --out "^csv = ${W}/sim-sweep/sweep.csv" --out "^plot = ${W}/sim-sweep/sweep.png"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/one-link.xml ${EXACT}
  --sweep speed=1:2,bw=0.5:1 -o ${W}/sim-sweep)
add_test(NAME bad_simulate_sweep_grid COMMAND ${EXPECT} --fail --one-line
  --out "--sweep speed: factors > 0, at most 16, not '0'"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/one-link.xml --sweep speed=1:0)
add_test(NAME bad_simulate_sweep_whatif COMMAND ${EXPECT} --fail --one-line
  --out "--sweep is a grid of --what-if factors"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/one-link.xml --sweep bw=1:2 --what-if speed=2)
add_test(NAME simulate_kernel_speed COMMAND ${EXPECT} --clean ${W}/sim-kern --out "^PET = 5\\.0101000? s"
  --out "^base speed = kernel calibration"
  -- ${PAS2P} simulate ${D}/closed-form-kernel.sig.xml --platform ${D}/one-link.xml ${EXACT}
  --base-speed kernel -o ${W}/sim-kern)
# platform units: a platform whose speeds are marked as kernel flop/s (as pas2p calibrate
# marks them) takes the trace's kernel calibration by default, and says so; an unmarked one
# keeps the base CPU, and says that too; --base-speed host overrides the mark
add_test(NAME simulate_platform_unit_kernel COMMAND ${EXPECT} --clean ${W}/sim-unit
  --out "^PET = 5\\.0101000? s"
  --out "^base speed = kernel calibration of each rank \\(the platform's speeds are pas2p kernel flop/s"
  -- ${PAS2P} simulate ${D}/closed-form-kernel.sig.xml --platform ${D}/one-link-kernel.xml ${EXACT}
  -o ${W}/sim-unit)
add_test(NAME simulate_platform_unit_none COMMAND ${EXPECT} --clean ${W}/sim-nounit
  --out "^base speed = 1e\\+09 flop/s \\(rank 0's host: the platform does not say its speeds"
  --out "^placement = 2 rank\\(s\\) on 2 host\\(s\\) \\(--map block\\)$"
  -- ${PAS2P} simulate ${D}/closed-form-kernel.sig.xml --platform ${D}/one-link.xml ${EXACT}
  -o ${W}/sim-nounit)
# placement: two ranks that fit on one host's cores (--map block, the default) send nothing
# over the network, and simulate says so; round-robin spreads them
add_test(NAME simulate_placement_one_host COMMAND ${EXPECT} --clean ${W}/sim-place
  --out "^placement = 2 rank\\(s\\) on 1 host\\(s\\) \\(--map block: no message crosses the network"
  -- ${PAS2P} simulate ${D}/closed-form-kernel.sig.xml
  --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml -o ${W}/sim-place)
add_test(NAME simulate_placement_round_robin COMMAND ${EXPECT} --clean ${W}/sim-place-rr
  --out "^placement = 2 rank\\(s\\) on 2 host\\(s\\) \\(--map round-robin\\)$"
  -- ${PAS2P} simulate ${D}/closed-form-kernel.sig.xml --map round-robin
  --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml -o ${W}/sim-place-rr)
add_test(NAME simulate_platform_unit_host COMMAND ${EXPECT} --clean ${W}/sim-unithost
  --out "^base speed = 1e\\+09 flop/s \\(--base-speed host"
  -- ${PAS2P} simulate ${D}/closed-form-kernel.sig.xml --platform ${D}/one-link-kernel.xml ${EXACT}
  --base-speed host -o ${W}/sim-unithost)
add_test(NAME bad_simulate_no_kernel COMMAND ${EXPECT} --fail --one-line
  --out "closed-form.sig.xml: rank 0 has no kernel calibration" --clean ${W}/sim-nokern
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/one-link.xml --base-speed kernel
  -o ${W}/sim-nokern)
# a probe no message answers (SimGrid's MPI_Probe polls: never a deadlock it sees): one
# line naming the rank, the probe and the phase, within the limit, not a hang
add_test(NAME bad_simulate_probe_unanswered COMMAND ${EXPECT} --fail
  --out "rank 1: a probe \\(source -2, tag 5\\) waited [0-9]+ simulated seconds for a message no rank sends: phase 1"
  --clean ${W}/sim-lostprobe
  -- ${PAS2P} simulate ${D}/probe-unanswered.sig.xml --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml
  -o ${W}/sim-lostprobe)
set_tests_properties(bad_simulate_probe_unanswered PROPERTIES TIMEOUT 60)
add_test(NAME simulate_show COMMAND ${EXPECT} --out "^method = simulate" --out "^PET = 10\\.0101"
  -- ${PAS2P} show ${W}/sim-cf/prediction.xml)
set_tests_properties(simulate_show PROPERTIES DEPENDS simulate_closed_form)
# pas2p calibrate: this machine as a SimGrid platform that simulate loads; the closed-form
# signature simulated on it and, --relative, against itself (ratio 1: the base PhaseET)
add_test(NAME calibrate_this_machine COMMAND ${EXPECT} --out "^speed = [0-9.e+]+$"
  --out "^latency = [0-9.e+-]+$" --out "^bandwidth = [0-9.e+]+$" --out "^platform = ${W}/calib.xml"
  -- ${PAS2P} calibrate --hosts 2 --seconds 0.2 -o ${W}/calib.xml -- ${MPIRUN})
set_tests_properties(calibrate_this_machine PROPERTIES FIXTURES_SETUP calibrated)
# its host speeds are marked as kernel flop/s, so simulate takes the kernel calibration
add_test(NAME calibrate_speed_unit COMMAND grep -q "<prop id=\"pas2p_speed_unit\" value=\"kernel\"/>"
  ${W}/calib.xml)
set_tests_properties(calibrate_speed_unit PROPERTIES FIXTURES_REQUIRED calibrated)
# its network model against closed forms, with a probe of known results (tests/fake_probe.sh)
add_test(NAME calibrate_model COMMAND bash ${T}/calibrate_model.sh ${PAS2P} ${D} ${W} ${MPIRUN})
# a probe that measured 1 byte slower than 1 KiB (its ranks still sharing a core): the
# platform's latency and 1-byte time are 1 KiB's, not the noise (run H's base platform
# had 2.7 us against 0.8 us)
add_test(NAME calibrate_noisy_latency COMMAND bash -c [=[
  set -e; p=$1 w=$2; shift 2; rm -f "$w"
  FAKE_PROBE_SLOW_1B=1 PAS2P_PROBE=${0%/*}/fake_probe.sh "$p" calibrate --hosts 2 -o "$w" -- "$@" >/dev/null
  grep "MPI latency    1.2e-05 s" "$w"; grep -E "one-way times .*: 1: 1.2e-05, 1024: 1.2e-05," "$w"]=]
  ${T}/fake_probe.sh ${PAS2P} ${W}/noisy-calib.xml ${MPIRUN})
add_test(NAME simulate_calibrated COMMAND ${EXPECT} --clean ${W}/sim-cal --out "^PET = [0-9.]+ s"
  --out "base speed: kernel calibration"
  -- ${PAS2P} simulate ${D}/closed-form-kernel.sig.xml --platform ${W}/calib.xml --base-speed kernel
  -o ${W}/sim-cal)
add_test(NAME simulate_relative COMMAND ${EXPECT} --clean ${W}/sim-rel --out "^PET = 10\\.0101[0-9]* s"
  --out "relative to the base simulation in ${W}/sim-cal"
  -- ${PAS2P} simulate ${D}/closed-form-kernel.sig.xml --platform ${W}/calib.xml --base-speed kernel
  --relative ${W}/sim-cal -o ${W}/sim-rel)
set_tests_properties(simulate_calibrated PROPERTIES FIXTURES_REQUIRED calibrated FIXTURES_SETUP sim_cal)
set_tests_properties(simulate_relative PROPERTIES FIXTURES_REQUIRED "calibrated;sim_cal")
add_test(NAME bad_simulate_relative_settings COMMAND ${EXPECT} --fail --one-line
  --out "has other settings in its simulate"
  -- ${PAS2P} simulate ${D}/closed-form-kernel.sig.xml --platform ${W}/calib.xml --base-speed 1Gf
  --relative ${W}/sim-cal -o ${W}/sim-rel2)
set_tests_properties(bad_simulate_relative_settings PROPERTIES FIXTURES_REQUIRED "calibrated;sim_cal")
add_test(NAME bad_calibrate_cpu COMMAND ${EXPECT} --fail --one-line --out "--cpu needs a share of a core"
  -- ${PAS2P} calibrate --cpu 2)
add_test(NAME bad_calibrate_launcher COMMAND ${EXPECT} --fail --out "pas2p calibrate: .*nonexistent"
  -- ${PAS2P} calibrate --seconds 0.05 -o ${W}/calib-bad.xml -- /nonexistent/mpirun)
# every bundled platform loads in SimGrid and carries a real trace's whole replay (the
# full trace, not the signature: on 4 ranks sharing 2 cores the analyzer may cut a rank's
# phases differently from its neighbours', and simulate then refuses the signature, naming
# the phase; see simbackend/README.md)
foreach(plat gbe-cluster 10gbe-cluster ib-fattree torus-cluster)
  add_test(NAME simulate_platform_${plat} COMMAND ${EXPECT} --clean ${W}/sim-${plat}
    --out "^PET = [0-9.]+ s" --out "^events = [1-9]"
    -- ${PAS2P} simulate --full-trace ${W}/app_cg --platform ${CMAKE_SOURCE_DIR}/platforms/${plat}.xml
    --map round-robin -o ${W}/sim-${plat})
  set_tests_properties(simulate_platform_${plat} PROPERTIES FIXTURES_REQUIRED app_cg)
endforeach()
# a full trace's wildcard receives are replayed as wildcards, like a signature's (a farm's
# master takes answers in the target's order, not the base's): tests/mpi/anysrc.c's rank 0,
# stage by stage (Recv ANY_SOURCE, ANY_TAG, both; fixed; Sendrecv from ANY_SOURCE ANY_TAG)
add_test(NAME simulate_full_trace_wildcards COMMAND bash -c
  "rm -rf \"$1\" && \"$0\" simulate --full-trace \"$2\" --platform \"$3\" -o \"$1\" >/dev/null &&
   a=\"$1/actions/rank-00000.act\" &&
   grep -qx 'recv -2 1 4 0' \"$a\" && grep -qx 'recv 1 -2 4 0' \"$a\" && grep -qx 'recv -2 -2 4 0' \"$a\" &&
   grep -qx 'recv 1 3 4 0' \"$a\" && grep -qx 'sendrecv 1 7 4 -2 -2 4 0' \"$a\""
  ${PAS2P} ${W}/sim-full-wild ${W}/anysrc ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml)
set_tests_properties(simulate_full_trace_wildcards PROPERTIES FIXTURES_REQUIRED anysrc)
add_test(NAME simulate_full_trace COMMAND ${EXPECT} --clean ${W}/sim-full --out "^events = [1-9]"
  --out "^PET = [0-9.]+ s" -- ${PAS2P} simulate --full-trace ${W}/app_cg
  --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml -o ${W}/sim-full)
set_tests_properties(simulate_full_trace PROPERTIES FIXTURES_REQUIRED app_cg
  FIXTURES_SETUP sim_full)
# show on that results directory: its PET, not "a run that diverged or failed writes none"
add_test(NAME show_full_trace_results COMMAND ${EXPECT} --out "^method = simulate --full-trace"
  --out "^ranks = 4$" --out "^PET = [0-9.]+ s" -- ${PAS2P} show ${W}/sim-full)
set_tests_properties(show_full_trace_results PROPERTIES FIXTURES_REQUIRED sim_full)
# bad input: one line naming the file, phase, call or host; never a SimGrid backtrace
add_test(NAME bad_simulate_inexpressible COMMAND ${EXPECT} --fail --one-line
  --out "phase 1, rank 0: MPI_Startall cannot be replayed" --clean ${W}/sim-bad1
  -- ${PAS2P} simulate ${D}/unnamed-start.sig.xml --platform ${D}/one-link.xml -o ${W}/sim-bad1)
add_test(NAME bad_simulate_unbalanced COMMAND ${EXPECT} --fail --one-line
  --out "phase 1 cannot be replayed alone: rank 1 receives 1 message.*tag 8" --clean ${W}/sim-bad2
  -- ${PAS2P} simulate ${D}/unbalanced.sig.xml --platform ${D}/one-link.xml -o ${W}/sim-bad2)
add_test(NAME bad_simulate_bare_factor COMMAND ${EXPECT} --fail --one-line --clean ${W}/sim-bf
  --out "SimGrid failed \\(exit 1[0-9][0-9]\\): it crashed \\(signal [0-9]+, [A-Za-z ]+\\) on .*bare-factor.xml: check its <config>"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/bare-factor.xml -o ${W}/sim-bf)
add_test(NAME bad_simulate_platform_not_xml COMMAND ${EXPECT} --fail --one-line
  --out "manifest: not XML \\(line 1" --clean ${W}/sim-bad3
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${W}/app_cg/manifest -o ${W}/sim-bad3)
set_tests_properties(bad_simulate_platform_not_xml PROPERTIES FIXTURES_REQUIRED app_cg)
add_test(NAME bad_simulate_platform_not_simgrid COMMAND ${EXPECT} --fail --one-line
  --out "closed-form.sig.xml: not a SimGrid platform" --clean ${W}/sim-bad4
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/closed-form.sig.xml -o ${W}/sim-bad4)
add_test(NAME bad_simulate_few_hosts COMMAND ${EXPECT} --fail --one-line
  --out "one-link.xml: the platform has 2 host cores for 4 ranks" --clean ${W}/sim-bad5
  -- ${PAS2P} simulate --full-trace ${W}/app_cg --platform ${D}/one-link.xml -o ${W}/sim-bad5)
set_tests_properties(bad_simulate_few_hosts PROPERTIES FIXTURES_REQUIRED app_cg)
add_test(NAME bad_simulate_unknown_host COMMAND ${EXPECT} --fail --one-line
  --out "hosts.txt:2: unknown host 'c'" --clean ${W}/sim-bad6
  -- bash -c "printf 'a\\nc\\n' > ${W}/hosts.txt && exec ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/one-link.xml --hostfile ${W}/hosts.txt -o ${W}/sim-bad6")
add_test(NAME bad_simulate_simgrid_aborts COMMAND ${EXPECT} --fail --one-line
  --out "SimGrid failed .*no connecting path" --clean ${W}/sim-bad7
  -- env PAS2P_QUIET=1 ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/no-route.xml -o ${W}/sim-bad7)
# a route to a host the platform does not have: SimGrid aborted (exit 134, "does name a node",
# the existing ones in its log only) and simulate exited 1; now a bad input, named (PENNANT)
add_test(NAME bad_simulate_route_to_nowhere COMMAND ${EXPECT} --rc 2 --one-line
  --out "route-to-nowhere.xml:9: route dst 'h9' is no host or router of the platform \\(hosts: a, b\\)"
  --clean ${W}/sim-bad8
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/route-to-nowhere.xml -o ${W}/sim-bad8)
add_test(NAME bad_simulate_no_platform COMMAND ${EXPECT} --fail --one-line --out "no --platform"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml)

# ---- actions table (actions branch)
# The actions added with simbackend/action_table.h (v-collectives, their non-blocking forms,
# non-blocking scans, wildcard receives) replayed for real and in SimGrid, at np 4
# (tests/data/replay-actions-v4: the world, a two-rank communicator, the world reversed;
# replay_kinds.sh as for the older actions) and at np 2 (replay-actions-v2); wrong counts
# make MPI abort, so a run that completes with both phases timed is the check.
add_test(NAME actions_table_replay_np4 COMMAND bash ${T}/replay_kinds.sh ${MPIRUN} --
  $<TARGET_FILE:pas2p_replayer> ${CMAKE_BINARY_DIR}/bin/pas2p-simreplay
  ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml ${D}/replay-actions-v4 ${W}/act-v4)
add_test(NAME actions_table_replay_np2 COMMAND bash -c [=[
  set -u; rep=$1 sim=$2 plat=$3 acts=$4 work=$5; shift 5
  ok() { for r in 0 1; do f=$1/rank-0000$r.times
           grep -q '^status completed' "$f" && grep -Eq '^phase 1 [0-9.]+' "$f" &&
             grep -Eq '^phase 2 [0-9.]+$' "$f" || { echo "$f: not completed or a phase not timed"; exit 1; }
         done; }
  rm -rf "$work" && mkdir -p "$work/mpi" "$work/sim" || exit 1
  timeout 100 "$@" -np 2 "$rep" "$acts" "$work/mpi" 3 sleep || { echo "the real MPI replay failed"; exit 1; }
  ok "$work/mpi"; echo "ok: real MPI"
  printf 'gbe-0\ngbe-1\n' > "$work/sim/hostfile"
  timeout 100 smpirun -np 2 -platform "$plat" -hostfile "$work/sim/hostfile" \
    --cfg=smpi/simulate-computation:no --log=root.thres:critical "$sim" "$acts" "$work/sim" 2 1e9 ||
    { echo "the SimGrid replay failed"; exit 1; }
  ok "$work/sim"; echo "ok: SimGrid"]=] np2
  $<TARGET_FILE:pas2p_replayer> ${CMAKE_BINARY_DIR}/bin/pas2p-simreplay
  ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml ${D}/replay-actions-v2 ${W}/act-v2 ${MPIRUN})
# the stock TI export of the new blocking v-collectives (written by the unit test's
# synthetic signature) replayed by SimGrid's own smpireplaymain
add_test(NAME actions_table_export_stock COMMAND bash -c [=[
  set -u; PAS2P_KEEP_EXPORT=$2 "$1" > "$2.log" 2>&1 || { cat "$2.log"; exit 1; }
  grep -q ' alltoallv ' "$2/phase-3/rank-00000.txt" || { echo "no alltoallv exported"; exit 1; }
  "$2/run.sh" "$3" | grep -E '^PET = [0-9.]+ s' || { echo "the stock replay failed"; exit 1; }]=] exp
  $<TARGET_FILE:test_actions> ${W}/act-export ${D}/one-link.xml)
# a full trace with v-collectives (alltoallv, gatherv: the trace's own per-peer counts),
# wildcard receives and a persistent ring: simulated, then its actions replayed with real MPI
add_test(NAME actions_table_full_trace_probe COMMAND ${EXPECT} --clean ${W}/act-probe
  --out "^PET = [0-9.]+ s" -- ${PAS2P} simulate --full-trace ${W}/probe
  --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml -o ${W}/act-probe)
add_test(NAME actions_table_full_trace_probe_mpi COMMAND bash -c [=[
  set -u; rm -rf "$3" && mkdir -p "$3" && grep -q '^alltoallv ' "$2/rank-00000.act" &&
  timeout 100 "${@:4}" -np 4 "$1" "$2" "$3" 1 sleep && grep -q '^status completed' "$3"/rank-00003.times]=] probe
  $<TARGET_FILE:pas2p_replayer> ${W}/act-probe/actions ${W}/act-probe-mpi ${MPIRUN})
set_tests_properties(actions_table_full_trace_probe PROPERTIES FIXTURES_REQUIRED probe
  FIXTURES_SETUP act_probe)
set_tests_properties(actions_table_full_trace_probe_mpi PROPERTIES FIXTURES_REQUIRED act_probe)
# ---- end of actions table block

# the real-MPI replayer's watchdog ends a replay that can never complete, with one line
add_test(NAME replay_watchdog COMMAND bash ${T}/replay_watchdog.sh $<TARGET_FILE:pas2p_replayer>
  ${W}/replay-watchdog -- ${MPIRUN} -np 2)
set_tests_properties(replay_watchdog PROPERTIES TIMEOUT 120)
# a master that waits for each result by polling MPI_Iprobe (IQ-TREE 2's): the failed polls
# after a slice's last call are the next call's waiting, in the next occurrence.  Counted
# in the slice before, where no event carried them, simulate and replay lost them: -5 to
# -11 % against the full trace on three traces (IQ-TREE -B 1000: -6 to -8 %), now within 1.2 %
add_executable(pollmaster mpi/pollmaster.c)
target_link_libraries(pollmaster PRIVATE MPI::MPI_C)
add_test(NAME simulate_trailing_polls_vs_full COMMAND bash -c [=[
  W=$1 pas2p=$2 prog=$3 svf=$4 plat=$5; shift 5; rm -rf "$W"; mkdir -p "$W"
  "$pas2p" trace -o "$W/t" -- "$@" -np 2 "$prog" 10 >"$W/trace.out" || exit 1
  grep -q "^pollmaster: ok" "$W/trace.out" || exit 1
  "$pas2p" analyze "$W/t" -o "$W/s.xml" >"$W/analyze.out" || exit 1
  grep -q "^PETE = +0.00 %" "$W/analyze.out" || { cat "$W/analyze.out"; exit 1; }
  bash "$svf" "$pas2p" "$W/s.xml" "$W/t" "$plat" "$W" 3
  ]=] simulate_trailing_polls ${W}/pollmaster ${PAS2P} $<TARGET_FILE:pollmaster>
  ${T}/sim_vs_full.sh ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml ${MPIRUN})
# waits on null requests while a receive whose message comes later is pending (ELPA's):
# replay, simulate and the full trace finish (each deadlocked: a wait that completed
# nothing was replayed as a wait for the oldest pending request)
add_executable(nullwait mpi/nullwait.c)
target_link_libraries(nullwait PRIVATE MPI::MPI_C)
add_test(NAME null_request_waits_every_path COMMAND bash -c [=[
  W=$1 pas2p=$2 prog=$3 plat=$4; shift 4; rm -rf "$W"; mkdir -p "$W"
  "$pas2p" trace -o "$W/t" -- "$@" -np 2 "$prog" 30 >"$W/trace.out" || exit 1
  grep -q "^nullwait: ok" "$W/trace.out" || exit 1
  "$pas2p" analyze "$W/t" -o "$W/s.xml" >/dev/null || exit 1
  timeout 60 "$pas2p" simulate "$W/s.xml" --platform "$plat" -o "$W/sim" >"$W/sim.out" 2>&1 &&
    grep -q "^PET = " "$W/sim.out" || { cat "$W/sim.out"; exit 1; }
  timeout 60 "$pas2p" simulate --full-trace "$W/t" --platform "$plat" -o "$W/full" >"$W/full.out" 2>&1 &&
    grep -q "^PET = " "$W/full.out" || { cat "$W/full.out"; exit 1; }
  PAS2P_REPLAY_TIMEOUT=30 timeout 60 "$pas2p" replay "$W/s.xml" -o "$W/rep" -- "$@" -np 2 >"$W/rep.out" 2>&1 &&
    grep -q "^PET = " "$W/rep.out" || { cat "$W/rep.out"; exit 1; }
  ]=] null_request_waits ${W}/nullwait ${PAS2P} $<TARGET_FILE:nullwait>
  ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml ${MPIRUN})
