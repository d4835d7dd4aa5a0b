"""simulation_interfaces in the environment: the definitions equal those of release 2.1.0
(a wheel environment builds them from tools/simulation_interfaces; a ROS installation has them).

Both tables below were taken from the released files, not from the repository's copies:
``git archive 2.1.0`` of ros-simulation/simulation_interfaces, its msg/srv/action files
unchanged, run through rosidl's type description generator (``make
simulation_interfaces__rosidl_generator_type_description`` with the Kilted wheels) for the
RIHS01 hashes, and its ``NAME = value`` lines for the constants (which the hashes do not
cover: a type hash is of the fields, their types and default values)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

#: RIHS01 hash of every type of release 2.1.0 (services' and the action's parts too), by name
#: after ``simulation_interfaces/``.
RELEASED = {
    'action/SimulateSteps':
        'f0837c898e1219cd73bf4c041feab41e8c533e8e1057e982744dba7b093467eb',
    'action/SimulateSteps_Feedback':
        '735661ca01115eb9bca068c3f2cb79bd790cd46962317ce7ee9081a5915c9a77',
    'action/SimulateSteps_FeedbackMessage':
        'a30dee7ee7380769e616406ec5067b238aa2b27e1dbd7a5957fba1d908d7754d',
    'action/SimulateSteps_GetResult':
        'a1dae0516ab5c70d6d797e1bcd55c9448dfbb1966643f1ebd3e3f153d8169ae0',
    'action/SimulateSteps_GetResult_Event':
        'd54ebdeb0c9bb6a086c9ab85d4e924b65f605e0f3a9ddc554d8d7a09f287e78f',
    'action/SimulateSteps_GetResult_Request':
        '4591b0bfbcb881003bbd46a2acebcaddceb977e5352905218688ce5ed051fdeb',
    'action/SimulateSteps_GetResult_Response':
        '5658172e771cb145a986a8ef4c2b80b5407b741038453b8539e35bed5ff23207',
    'action/SimulateSteps_Goal':
        '3f02c5df1dcdc7c08efee7f47c953c42c11686e0df8f8bbfb2d7e901f0d440d2',
    'action/SimulateSteps_Result':
        'a1384eaee4ca7ae9238e612dfe26939dd0922cae664be1b5886cf773718823dc',
    'action/SimulateSteps_SendGoal':
        '504407b9ff5617a737df8222cf581452b4f2e699e11e940d8d36590c5fb07d01',
    'action/SimulateSteps_SendGoal_Event':
        'ca2cc24c32b764bb97aed990587f410e89546bb64af5805ece2673d19c914d7b',
    'action/SimulateSteps_SendGoal_Request':
        '275e6fd2fafc5d33dcdc83bdea6de5cf29f30b9df74a3b9514a8c5d501fd0fe3',
    'action/SimulateSteps_SendGoal_Response':
        '755f44a68d1e8d116f50dfed7ab30a140137fb71ad59eca4851d55abe2b3d4c2',
    'msg/Bounds':
        'e8624fe51f0f5548197542697d924c5699ac7198f1e4c68e50c3ca2af73f5b3f',
    'msg/EntityCategory':
        '43bdf7933fddf75f6970f7a8fe7078524355d821d390b3954bb46ac36c03dfe1',
    'msg/EntityFilters':
        '8e7b12e8ea062f14c55de4877221fe1b7cd9749665a7ad8a4ab855fc4b148303',
    'msg/EntityInfo':
        '3b9a2e7fa00f9a59d325b6e47904044c421561a385682027c7fc06c359806319',
    'msg/EntityState':
        '2e0464a85eb80a939025075d6c20761eca6a4cb9d6baf2c0ba373467c8b598d0',
    'msg/NamedPose':
        'b32da2a039b1840f605ec025b7991a18efacac662fac272818d1ae6e2b12bc27',
    'msg/Resource':
        '2bb1939cf80f8d2f284afba53cbec60b5ff33759bd39b714128ea8867a34c51a',
    'msg/Result':
        'cf43a306adff3337a0a47143d8f5689933bc70a30478f13b077dc1fe3bc5ad17',
    'msg/SimulationState':
        'bb9f87ccdd98fba113052a512d9801e84ce732d0a2b3c2b0cb281828de36e415',
    'msg/SimulatorFeatures':
        '8b101c8529bc0ea3dcf056078254768f39832b9ef0adaf93bd5cea96c0de3305',
    'msg/SpawnEntity':
        '94a349a865ccf673c18c080520299c88c3d8d5f4842ecf1482d6c997ac4b69f9',
    'msg/SpawnResult':
        'dbc277304b6c24bfb2a631cea8f52e2b005d583ec0a6c86b11613f5ce6486da1',
    'msg/Spawnable':
        '8675aa686f0df1ed7874a6ec210fdce1ac1c07f4e49fc26ec7fb6fe729f6772e',
    'msg/TagsFilter':
        '5c3efc51e8ed04c266c09cb4691ec95b964cd410558e01d8c83646b038826b45',
    'msg/WorldResource':
        'e3b65ecf904b9b115673e4a343c6aa3d28c19e185a71228faa64b783afcf2403',
    'srv/DeleteEntity':
        'ff7e96a5b83dc8e2bb34b8b034480028b3a24d9f8376b2c0590bac3704be3e28',
    'srv/DeleteEntity_Event':
        '6850423be1d45755566343794fb56be8ff3c90fc87706b7ea939764499a9d773',
    'srv/DeleteEntity_Request':
        '4b41b2ebdc313a0c98c7c2218849edc8b7b905fd759a23b68c576496a47dc792',
    'srv/DeleteEntity_Response':
        '2f68929b527a3bbee03637a1c8192f2aa2982807738389aa0781f8e785673ca7',
    'srv/GetAvailableWorlds':
        'ce5589b5523f2732d1969a3c5a7e6b17a387091df8190c62f78d7fdd1109e3e3',
    'srv/GetAvailableWorlds_Event':
        'd3ddd4cef845a1d6fbe402a376963b1fbcedd066fdd9b7afccd32fac73ec9135',
    'srv/GetAvailableWorlds_Request':
        '6335180e35038ba62eb2bae3d1c1bacd4b7791209137eacbddfee12629bf6c3a',
    'srv/GetAvailableWorlds_Response':
        '0ce98a1547f1852fd6d95f794ae4bae8b1d97b9cfa83ea22b80f634999234a18',
    'srv/GetCurrentWorld':
        '79ed4e910e1b7a1c9f7950ff758bfba3535bf0dec669054e8af115a099724ddd',
    'srv/GetCurrentWorld_Event':
        '902c9e9dbb35203e71f734410d7b8c0ec94fa8191fb04287a936a72dd713d5c0',
    'srv/GetCurrentWorld_Request':
        '414ac6e1c5fd5f8be0b828ca7ff8cbee7166297809de31a36129f1d0913cd877',
    'srv/GetCurrentWorld_Response':
        '039f99eb4e156ac597efed7598249921f8e47e5bff8c299d86ab081983a3a52a',
    'srv/GetEntities':
        'cb90004c48cd50f37732fb008e22c34c261dd680a723bf0f85d8437ea4498bf7',
    'srv/GetEntitiesStates':
        '0a76170d0c1c90e1eaf805cfab78ea801d1f82df309a28c1f0fae4b570f19754',
    'srv/GetEntitiesStates_Event':
        '3bfcf28a7087002f7f5be3539f5d069b660227c3f81e0e3195981e13a56d8b3d',
    'srv/GetEntitiesStates_Request':
        '0af5302d3526834e83bd9861fbcc5214af2b9a4b0c93a965840fb1a6c2891724',
    'srv/GetEntitiesStates_Response':
        'b651848f4d93a2b0ec5ec3f36659297ca30547c499f933eb279b60f8be434315',
    'srv/GetEntities_Event':
        'c26cff3c94ca0df967f9f223af89340dcb6becb05b9d32544eb84cac0e85ca8d',
    'srv/GetEntities_Request':
        'f0a4c6c0c39c87f84cbd1ea31956b9f39b3fa538ae9c4aa7fc243a32360e8c70',
    'srv/GetEntities_Response':
        'dd1916edbdc659d355e77980b16ed6eb4d41d5ff445557931ed65c58b00f7b2c',
    'srv/GetEntityBounds':
        '17be8d36231178a5eed0de0344b55c19975581627a9aec30a4fee9926a35deed',
    'srv/GetEntityBounds_Event':
        '12525654c3c1271da06ce976dd1ab72920fbe3879768c4b53f1074b9b98f05bb',
    'srv/GetEntityBounds_Request':
        '41766afd481abfa03a9dface86a487e317da516333af3f5b017df248dd5d7fee',
    'srv/GetEntityBounds_Response':
        '728d414a3be6d7689fad9d3218c8378c68fbe08c2cfbf9878ac14de713fcf4c1',
    'srv/GetEntityInfo':
        '953b7ab6bfc35063f5c9a72463c6ce489baa10249a7fa510926d342a34b0d29e',
    'srv/GetEntityInfo_Event':
        '925bdd1efc19b29c5548add7ffa4a7821b5533d90f25d73673d8978f9f0ad206',
    'srv/GetEntityInfo_Request':
        '9bdd2628d931108734e304ae1fac80d268a46783fa0060d4a43831c54c30f3b3',
    'srv/GetEntityInfo_Response':
        'eaa358f007b09b06645f93b5a1c6ae0389f27bee7747e760122994ab1308e1c8',
    'srv/GetEntityState':
        '749c91f2a2353d98367b64f2995a0f5842ce92a08ec1ffb3e185540a91557fb5',
    'srv/GetEntityState_Event':
        '5c4a353980893294fce5fca5a1359ec0c821578acc263f56db8042b35ced68e6',
    'srv/GetEntityState_Request':
        '580141cc957c4ee99a7e46bc545db351ab9ce6c3099d4092b1186ddc6a38bd5a',
    'srv/GetEntityState_Response':
        '125f1ca9dc2fc072443deb28587bbb1026fa34db4dfaf59e9a6b7128e0c81331',
    'srv/GetNamedPoseBounds':
        '59fa8dd2c68ba6771160cc66a628ac99fa95e2748fa0a43c2cc62a2e5f3f6fdc',
    'srv/GetNamedPoseBounds_Event':
        'b3e0f071e2350276bc9f5ac23a19b0a7dcaea7add138439ccd986b22db4aad0a',
    'srv/GetNamedPoseBounds_Request':
        '4a62596dff6478d6424267da8933b1446992f61c70c2c196aa36258a1f1d133f',
    'srv/GetNamedPoseBounds_Response':
        'db03610df68de520b420ccc9dc8826a92547ab9e791ac2a36a7dc86e8f2aa180',
    'srv/GetNamedPoses':
        'c3d12ab920115bfd4733f6d20516adc3968fb438538540997c37e200e02b04e3',
    'srv/GetNamedPoses_Event':
        '721dfb79239fd5585b94ec7f18046c7d08f8aa97d0755bbad3b27ac32a165393',
    'srv/GetNamedPoses_Request':
        '3d85f7553c5fcb491256b6eab66204ee590edbd0ad2dd53bb4ddf8a95f16af6e',
    'srv/GetNamedPoses_Response':
        'd0459c9da6adb831b3755778bc348cc88ad2b22fe864a11062df20610a12c320',
    'srv/GetSimulationState':
        '3362dcebee4b1afebbf9c4beee5c79c1455385aded62092a892d61fde8644f30',
    'srv/GetSimulationState_Event':
        '34cdb4f06989af235d3403650bae196550a928870b69740899fadc922899748f',
    'srv/GetSimulationState_Request':
        'c6d65bc5c0a95ca2886bc57f146f803e01722c84ddb5acd5f32a4417f55eecfb',
    'srv/GetSimulationState_Response':
        'dc80ce852a5ab04c2b23cdd47910cee1bcc46e0f1931cac85825e6916b15517f',
    'srv/GetSimulatorFeatures':
        'abb9439c8cf196722a469fb6c68b44b484f198c2a1356ac38849a29c2a20a794',
    'srv/GetSimulatorFeatures_Event':
        '2716384dc5445ebe9e7eda1021e5739b8c62ab985dccc3c506ba840c67e810b8',
    'srv/GetSimulatorFeatures_Request':
        '982b8c1adef1d556f6ecdc019d1269fc39413626a9222d73b4fc874bd798b7db',
    'srv/GetSimulatorFeatures_Response':
        'ede4dc8227cbb2f86a24612c999dcaa67d17dab21dab566cefdc233e7a2a65d1',
    'srv/GetSpawnables':
        '3e25fd827d8bcbd9db5e36ccb190efa22d6f6313897861268ab923bf091a992a',
    'srv/GetSpawnables_Event':
        '75158c8b3a4b30209c30f9196f06ec5385d79c8980a314b703e6febd94f268f3',
    'srv/GetSpawnables_Request':
        '3e1d1577446a80da956db3e82363c2d66364f9802f6e9572d89497933207d921',
    'srv/GetSpawnables_Response':
        'cb61fd741c429d6bc689514b7bfc65bb1518126961317acc6e414a841dc43daa',
    'srv/LoadWorld':
        '87d0ded1bfddb40a74d0bedb963fdd592fbedb14d0057d597850404b73c338af',
    'srv/LoadWorld_Event':
        '0cba99d8d9a6926fea686100b493110d95fd11d8ca577e2bd1cff249062997a3',
    'srv/LoadWorld_Request':
        'cd389402a680703d3f9b45b1c3d6bb09c0578b4644654227f0b2e98a2f059f48',
    'srv/LoadWorld_Response':
        '7bab3265c2461d98a44dd04830c5dc997b3d8605c50861824066246c96a7716e',
    'srv/ResetSimulation':
        '4ce285d7ff9b8ac70dcc95161f32bf54c05a6f4b13427990e41ab40c36c39646',
    'srv/ResetSimulation_Event':
        'dd7cbcb886e466ab23216c7033f25e8534e5255a73877944338bb301e7b29626',
    'srv/ResetSimulation_Request':
        '2c766d09c3aa30f01fadc55a42fd760b63db358c7d1d3b6a64ea9978225ffbc7',
    'srv/ResetSimulation_Response':
        '718428121e0f1755720878d3c28f1688da7581ee5a5d56d26d10d941a28a50a0',
    'srv/SetEntityInfo':
        '867fe2b6812f3e021859171f9b788560d66bb7079d640030baf6c0bb2dd2631e',
    'srv/SetEntityInfo_Event':
        '02fa040f4ae8a026ed9f8b9dbd09c589fbce019f9e3623b3c90e076e8ee9fe75',
    'srv/SetEntityInfo_Request':
        'd80ba71f092c702485bdffcd35713793866df4e1a16ace6632c6d4a15bb1eb55',
    'srv/SetEntityInfo_Response':
        'd17b31f0f6db0146ceb0b711d47dbf81c9c11c87ca4f64cfa671a95d9723c3d6',
    'srv/SetEntityState':
        'fba636c91d38832dbd4f6896ffce54ff98fd9929962b0533546b56ce00f988ac',
    'srv/SetEntityState_Event':
        'f5b3187a90438dda1607d2719b3db896dfb2520eea1be61897aca61ff73b5b19',
    'srv/SetEntityState_Request':
        '0ec3cca7e2bde7323c0c7ea4a5a7947f81edb90c144fc0aef5e2052e94e10061',
    'srv/SetEntityState_Response':
        'bbd9bcb2def000f1ed8cb9482abff46c5a11cfe4184203f336b920f249d757f4',
    'srv/SetSimulationState':
        'a868b916dce49974f637ba252141258c4b07b0c06858b88af560e3eb6bfbcb30',
    'srv/SetSimulationState_Event':
        'aea08cbc96bd8c6c88ba9ab79f98a73bf3028c35ea8e1f47bf5fc9d82cbc6b9a',
    'srv/SetSimulationState_Request':
        '73283477d36ba619db2ac37a3e599077ca244502c9d8ca2a7183afcb2224f476',
    'srv/SetSimulationState_Response':
        '6351aebf2bbf06e2993977918b944240f7403b532a9e4a344c53e71a56afd174',
    'srv/SpawnEntities':
        '41703a359ee032bf4fc230f144f531705ba039a2e97edeae1f7997dd83b04857',
    'srv/SpawnEntities_Event':
        '2ad607727595abd8bd06e3eab4a425615c44b370837a266b3d654994dfa87ee0',
    'srv/SpawnEntities_Request':
        '03f070057ac2ab26d723fe9f07c7d57bd39ace34ad34bb043cdbca36825c98d9',
    'srv/SpawnEntities_Response':
        '85df56d44250220df64762bf3e769cce45f84730eff8b9823093ca3041ecbbf5',
    'srv/SpawnEntity':
        '66860313e11009faddbfc8568e5d410d1a11607fe75eeb1308671dc0406fe3a7',
    'srv/SpawnEntity_Event':
        '859257355aa77aab58ea462cbc6f046cf9eda68c0f671b7106045b48c92401a4',
    'srv/SpawnEntity_Request':
        '9bc04fe30d4844466c57b7b090fd7e9aa426995f3eb6ff9a726826ab7223e1fd',
    'srv/SpawnEntity_Response':
        'be8c9fc03b6faaf95570949c80195c8ca75dd99f7efc23262309d497b2923982',
    'srv/StepSimulation':
        '913fe0653690ce6bf8f09f316e6a626747012e9fca31e26719910d417aa8565c',
    'srv/StepSimulation_Event':
        '1796fda54ba381a56d32c10784cabf78e14d6c8a1912a515a47d6597ad431d90',
    'srv/StepSimulation_Request':
        'cda33f6887815f3dce0f90e61fd8efd39bda13ae264ddede15c33fbad890630e',
    'srv/StepSimulation_Response':
        '5b4acf2d0ce7c3fc125d0bef2acb9b5a81377e80db6b696b81beeffb9824fb5c',
    'srv/UnloadWorld':
        'ac7f9a73df1b5b15015d854c5ac552b7726506e22f886c6792804f0b7f88b30b',
    'srv/UnloadWorld_Event':
        '3162d5a68097988260c3a9a65cfd99f788a4a0b00d164bff67a5e7230cbff829',
    'srv/UnloadWorld_Request':
        '22b41a53aecd3cd180a218b16d9428cddc10b9e592ae16eaa434be873387e972',
    'srv/UnloadWorld_Response':
        '68d4ea5721903837edd7c7e90d86e62aafb861c1ace33b7c805931974a652d9e',
}

#: The constants of release 2.1.0: (folder, type) -> [(name, value)].
CONSTANTS = {
    ('msg', 'Bounds'): [
        ('TYPE_EMPTY', 0), ('TYPE_BOX', 1), ('TYPE_CONVEX_HULL', 2), ('TYPE_SPHERE', 3),
    ],
    ('msg', 'EntityCategory'): [
        ('CATEGORY_OBJECT', 0), ('CATEGORY_ROBOT', 1), ('CATEGORY_HUMAN', 2),
        ('CATEGORY_DYNAMIC_OBJECT', 4), ('CATEGORY_STATIC_OBJECT', 5),
    ],
    ('msg', 'Result'): [
        ('RESULT_FEATURE_UNSUPPORTED', 0), ('RESULT_OK', 1), ('RESULT_NOT_FOUND', 2),
        ('RESULT_INCORRECT_STATE', 3), ('RESULT_OPERATION_FAILED', 4),
    ],
    ('msg', 'SimulationState'): [
        ('STATE_STOPPED', 0), ('STATE_PLAYING', 1), ('STATE_PAUSED', 2), ('STATE_QUITTING', 3),
        ('STATE_NO_WORLD', 4), ('STATE_LOADING_WORLD', 5),
    ],
    ('msg', 'SimulatorFeatures'): [
        ('SPAWNING', 0), ('DELETING', 1), ('NAMED_POSES', 2), ('POSE_BOUNDS', 3),
        ('ENTITY_TAGS', 4), ('ENTITY_BOUNDS', 5), ('ENTITY_BOUNDS_BOX', 6),
        ('ENTITY_BOUNDS_CONVEX', 7), ('ENTITY_CATEGORIES', 8), ('SPAWNING_RESOURCE_STRING', 9),
        ('ENTITY_STATE_GETTING', 10), ('ENTITY_STATE_SETTING', 11), ('ENTITY_INFO_GETTING', 12),
        ('ENTITY_INFO_SETTING', 13), ('SPAWNABLES', 14), ('SIMULATION_RESET', 20),
        ('SIMULATION_RESET_TIME', 21), ('SIMULATION_RESET_STATE', 22),
        ('SIMULATION_RESET_SPAWNED', 23), ('SIMULATION_STATE_GETTING', 24),
        ('SIMULATION_STATE_SETTING', 25), ('SIMULATION_STATE_PAUSE', 26),
        ('STEP_SIMULATION_SINGLE', 31), ('STEP_SIMULATION_MULTIPLE', 32),
        ('STEP_SIMULATION_ACTION', 33), ('WORLD_LOADING', 40), ('WORLD_RESOURCE_STRING', 41),
        ('WORLD_TAGS', 42), ('WORLD_UNLOADING', 43), ('WORLD_INFO_GETTING', 44),
        ('AVAILABLE_WORLDS', 45), ('SPAWNING_ENTITIES', 50),
    ],
    ('msg', 'SpawnResult'): [
        ('NAME_NOT_UNIQUE', 101), ('NAME_INVALID', 102), ('UNSUPPORTED_FORMAT', 103),
        ('NO_RESOURCE', 104), ('NAMESPACE_INVALID', 105), ('RESOURCE_PARSE_ERROR', 106),
        ('MISSING_ASSETS', 107), ('UNSUPPORTED_ASSETS', 108), ('INVALID_POSE', 109),
    ],
    ('msg', 'TagsFilter'): [
        ('FILTER_MODE_ANY', 0), ('FILTER_MODE_ALL', 1),
    ],
    ('srv', 'GetAvailableWorlds.Response'): [
        ('DEFAULT_SOURCES_FAILED', 101),
    ],
    ('srv', 'GetCurrentWorld.Response'): [
        ('NO_WORLD_LOADED', 101),
    ],
    ('srv', 'LoadWorld.Response'): [
        ('UNSUPPORTED_FORMAT', 101), ('NO_RESOURCE', 102), ('RESOURCE_PARSE_ERROR', 103),
        ('MISSING_ASSETS', 104), ('UNSUPPORTED_ASSETS', 105), ('UNSUPPORTED_ELEMENTS', 106),
    ],
    ('srv', 'ResetSimulation.Request'): [
        ('SCOPE_DEFAULT', 0), ('SCOPE_TIME', 1), ('SCOPE_STATE', 2), ('SCOPE_SPAWNED', 4),
        ('SCOPE_ALL', 255),
    ],
    ('srv', 'SetEntityState.Response'): [
        ('INVALID_POSE', 101),
    ],
    ('srv', 'SetSimulationState.Response'): [
        ('ALREADY_IN_TARGET_STATE', 101), ('STATE_TRANSITION_ERROR', 102),
        ('INCORRECT_TRANSITION', 103),
    ],
    ('srv', 'SpawnEntities.Response'): [
        ('ENTITIES_SPAWN_FAILED', 150),
    ],
    ('srv', 'SpawnEntity.Response'): [
        ('NAME_NOT_UNIQUE', 101), ('NAME_INVALID', 102), ('UNSUPPORTED_FORMAT', 103),
        ('NO_RESOURCE', 104), ('NAMESPACE_INVALID', 105), ('RESOURCE_PARSE_ERROR', 106),
        ('MISSING_ASSETS', 107), ('UNSUPPORTED_ASSETS', 108), ('INVALID_POSE', 109),
    ],
    ('srv', 'UnloadWorld.Response'): [
        ('NO_WORLD_LOADED', 101),
    ],
}


def _share() -> Path:
    """simulation_interfaces' share directory: the install prefix of its Python package."""
    import simulation_interfaces
    for parent in Path(simulation_interfaces.__file__).resolve().parents:
        if (parent / 'share' / 'simulation_interfaces' / 'package.xml').exists():
            return parent / 'share' / 'simulation_interfaces'
    raise AssertionError(f'no share/simulation_interfaces above {simulation_interfaces.__file__}')


def _built_hashes() -> dict[str, str]:
    out = {}
    for path in sorted(_share().glob('*/*.json')):
        for entry in json.loads(path.read_text())['type_hashes']:
            name = entry['type_name']
            if name.startswith('simulation_interfaces/'):
                out[name.split('/', 1)[1]] = entry['hash_string'].removeprefix('RIHS01_')
    return out


def test_every_type_has_the_released_type_hash():
    built = _built_hashes()
    assert sorted(built) == sorted(RELEASED)
    differ = [name for name, expected in RELEASED.items() if built[name] != expected]
    assert not differ, differ


def test_the_python_types_carry_the_released_constants():
    import importlib
    for (folder, name), constants in CONSTANTS.items():
        module = importlib.import_module(f'simulation_interfaces.{folder}')
        cls = module
        for part in name.split('.'):
            cls = getattr(cls, part)
        for constant, value in constants:
            assert getattr(cls, constant) == value, f'{folder}/{name}.{constant}'


def test_the_15_messages_22_services_and_the_action_are_there():
    assert sum(1 for n in RELEASED if n.startswith('msg/')) == 15
    assert sum(1 for n in RELEASED if n.startswith('srv/') and '_' not in n) == 22
    assert [n for n in RELEASED if n.startswith('action/') and '_' not in n] == \
        ['action/SimulateSteps']
